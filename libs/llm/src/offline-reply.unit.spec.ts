import { NO_REPLY } from '@dirigent/contracts';
import { participantReply, readPrompt } from './offline-reply';
import type { ChatRequest } from './request';

const chat = (system: string, user: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'm',
  messages: [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ],
  ...extra,
});

/** Dit's synthesizer prompt as compose-reply builds it, memory assembled by a lens. */
const ditPrompt = (message: string) =>
  chat(
    'You are Dit, a member of a Discord community, not an assistant.\nVoice: dry.',
    [
      '## context',
      '## Live transcript',
      '[#1100] Sam: hey everyone',
      '[#1100] Ada: Hey Sam! Good to see you.',
      `[#1100] Sam: ${message}`,
      '## From the archive',
      '[#1100 2026-11-20 18:02] Sam: we were deciding about the release freeze date [2 reactions, 1 replies]',
      '',
      '## message from Sam',
      `<@42> ${message}`,
      '',
      '## research material',
      '### archivist',
      'Sam talked about the release freeze.',
    ].join('\n'),
  );

const SCAFFOLDING = /##|\[#|\[offline|research material|Live transcript|<@/;

describe('the offline participant model', () => {
  it('reads the message, its author and the memory lines out of the prompt', () => {
    const p = readPrompt(ditPrompt('do you remember what we were deciding about?'));
    expect(p).toMatchObject({
      speaker: 'Dit',
      author: 'Sam',
      message: 'do you remember what we were deciding about?',
      orchestrator: false,
    });
    expect(p.memory).toContainEqual({
      who: 'Sam',
      text: 'we were deciding about the release freeze date',
    });
    expect(p.memory.map((m) => m.text)).not.toContain(p.message);
  });

  it('answers a memory question by quoting the best memory hit whole, never the prompt', () => {
    const text = participantReply(ditPrompt('do you remember what we were deciding about?'));
    // Sam asks, and Sam said it: the reply speaks to Sam.
    expect(text).toMatch(/you said: "we were deciding about the release freeze date"\.$/);
    expect(text).not.toMatch(SCAFFOLDING);
    expect(text.length).toBeLessThan(200);
  });

  it('replies to the message: greetings, questions, statements; same input, same reply', () => {
    const hi = participantReply(chat('You are Ada.', '## message from Sam\nhello all'));
    expect(hi).toMatch(/^(Hey|Hi|Hello), Sam/);
    const q = participantReply(chat('You are Ada.', 'what do you think about pineapple pizza?'));
    // Nothing in memory and no model: it says plainly what it cannot do.
    expect(q).toMatch(/offline/);
    expect(q).toBe(
      participantReply(chat('You are Ada.', 'what do you think about pineapple pizza?')),
    );
    const s = participantReply(chat('You are Basil.', 'I finally fixed my bike chain today'));
    expect(s).toMatch(/^(Noted|Got it|Makes sense)\.$/);
    for (const t of [hi, q, s]) expect(t).not.toMatch(SCAFFOLDING);
  });

  it('words the same answer differently for different speakers', () => {
    const msg = 'the new espresso machine arrived';
    const replies = ['Ada', 'Basil', 'Clio', 'Dit', 'Molt'].map((n) =>
      participantReply(chat(`You are ${n}.`, msg)),
    );
    expect(new Set(replies).size).toBeGreaterThan(1);
    // Names with different initials never answer one message in chorus.
    for (const m of ['hey everyone!', 'also the snacks are on Ada this time', 'what now?']) {
      const four = ['Ada', 'Basil', 'Clio', 'Dit'].map((n) =>
        participantReply(chat(`You are ${n}.`, `## message from Sam\n${m}`)),
      );
      expect(new Set(four).size).toBe(4);
    }
  });

  it('never recalls its own lines, bot markers or the message itself', () => {
    const text = participantReply(
      chat(
        'You are Clio, a friendly demo agent.',
        [
          '## message from Sam',
          'remember the plan?',
          '## memory',
          '[#1] Clio: I said something about gardening tools',
          `[#1] Ada: ${NO_REPLY}`,
          '[#1] Basil: [offline 1234abcd] Clio, answer: remember the plan?',
          '[#1] Sam: remember the plan?',
          '[#1] Sam: @Dit remember the plan?',
        ].join('\n'),
      ),
    );
    expect(text).not.toMatch(/gardening|offline|NO_REPLY/);
  });

  it("answers a question about the asker's own words from the asker's lines, quoted whole", () => {
    const text = participantReply(
      chat(
        'You are Dit.',
        [
          '## message from Sam',
          'do you remember where I said I am travelling?',
          '## memory',
          '[#1] Sam: Hello everyone! I am planning a trip to Lisbon in May, any tips?',
          '[#1] Basil: Not sure about tips yet; nobody has said much on it here.',
        ].join('\n'),
      ),
    );
    expect(text).toMatch(
      /you said: "Hello everyone! I am planning a trip to Lisbon in May, any tips\?"$/,
    );
    expect(text).not.toMatch(/Basil|nobody/);
  });

  it('does not take the name it is called by for what the question is about', () => {
    // The playground: the picnic line and an earlier question to Dit share one word each with
    // "Dit, where did I say the picnic was?"; only the picnic is what was asked about.
    const text = participantReply(
      chat(
        'You are Dit.',
        [
          '## message from You',
          'Dit, where did I say the picnic was?',
          '## memory',
          '[#1] You: hi everyone, I am planning a picnic at Lake Merritt on Saturday',
          '[#1] You: Dit, what do you think about bringing a guitar?',
        ].join('\n'),
      ),
    );
    expect(text).toMatch(
      /you said: "hi everyone, I am planning a picnic at Lake Merritt on Saturday"/,
    );
    expect(text).not.toMatch(/guitar/);
  });

  it('answers from what was said, never from a question, and hears "bring" in "bringing"', () => {
    // The playground: questions to Dit sit between the statements they ask about.
    const transcript = [
      '## Live transcript',
      '[#1] You (human): The picnic is at Riverside Park on Saturday at noon.',
      '[#1] You (human): Dit, what do you think about bringing a guitar?',
      '[#1] You (human): Dit, where did I say the picnic was?',
      '[#1] You (human): I am bringing lemonade and sandwiches.',
    ];
    const ask = (speaker: string, message: string) =>
      participantReply(
        chat(
          `You are ${speaker}.`,
          [...transcript, '', '## message from You (human)', message].join('\n'),
        ),
      );
    expect(ask('Dit', 'Dit, do you remember what time the picnic starts?')).toMatch(
      /you said: "The picnic is at Riverside Park on Saturday at noon\."$/,
    );
    // "did I say" asks memory; "bring" finds "bringing"; the guitar question is no answer.
    expect(ask('Dit', 'Dit, what did I say I would bring?')).toMatch(
      /you said you are bringing lemonade and sandwiches\.$/,
    );
    expect(ask('Clio', 'Clio, where is the picnic again?')).toMatch(
      /^(Looking back, |The record shows that )you said: "The picnic is at Riverside Park/,
    );
    // A statement that shares a word with a question only is news: no question quoted back.
    expect(ask('Ada', 'I am bringing a guitar too.')).not.toMatch(/what do you think/);
  });

  it('reads a ranked archive whole, though the question itself ranks first in it', () => {
    const text = participantReply(
      chat(
        'You are Dit.',
        [
          '## From the archive',
          '[#1 2026-12-07 22:03] You (human): Dit, do you remember what time the picnic starts?',
          '[#1 2026-12-07 22:03] You (human): The picnic is at Riverside Park on Saturday at noon.',
          '',
          '## message from You (human)',
          'Dit, do you remember what time the picnic starts?',
        ].join('\n'),
      ),
    );
    expect(text).toMatch(/you said: "The picnic is at Riverside Park on Saturday at noon\."$/);
  });

  it('says it has nothing rather than recall a line that shares no word with the question', () => {
    const text = participantReply(
      chat(
        'You are Dit.',
        [
          '## message from Sam',
          'do you remember where I am travelling?',
          '## memory',
          "[#1] Ada: I don't have anything on that in memory yet.",
        ].join('\n'),
      ),
    );
    expect(text).toMatch(/^(Nothing on that in memory\. Yet\.|Memory's blank on that one\.)$/);
  });

  it('quotes a line whole when its sentence is more than someone speaking of themselves', () => {
    const text = participantReply(
      chat(
        'You are Dit.',
        [
          '## message from Sam',
          'Dit, do you remember what I started learning?',
          '## memory',
          '[#1] Sam: Hi all, I started learning pottery this week and I live in Porto now.',
        ].join('\n'),
      ),
    );
    expect(text).toMatch(
      /you said: "Hi all, I started learning pottery this week and I live in Porto now\."$/,
    );
  });

  it('reports a whole sentence someone said of themselves as theirs; quotes the rest', () => {
    const reply = (line: string, message: string) =>
      participantReply(
        chat(
          'You are Dit.',
          ['## message from Sam', message, '## memory', `[#1] Ana: ${line}`].join('\n'),
        ),
      );
    expect(
      reply("I've just moved to Berlin for work.", 'Dit, do you remember where Ana moved?'),
    ).toMatch(/Ana said they've just moved to Berlin for work\.$/);
    expect(
      reply("I'm learning the cello these days.", 'Dit, do you remember what Ana is learning?'),
    ).toMatch(/Ana said they're learning the cello these days\.$/);
    expect(
      reply('I was out in the garden all day.', 'Dit, remember what Ana did in the garden?'),
    ).toMatch(/Ana said they were out in the garden all day\.$/);
    expect(
      reply('the cello lessons start in May', 'Dit, do you remember when the cello lessons start?'),
    ).toMatch(/Ana said: "the cello lessons start in May"\.$/);
    // Said to the one who said it: "you".
    expect(
      participantReply(
        chat(
          'You are Basil.',
          [
            '## message from Sam',
            'do you remember what I am learning?',
            '## memory',
            "Sam: I'm learning the cello these days.",
          ].join('\n'),
        ),
      ),
    ).toMatch(/you said you're learning the cello these days\.$/);
  });

  it('answers a memory question with the line that holds what it lacks, whole', () => {
    const text = participantReply(
      chat(
        'You are Dit.',
        [
          '## Live transcript',
          '[#1] You (human): we decided the summer party venue is the old lighthouse',
          '[#1] Ada: Fair point on summer party venue.',
          '[#1] You (human): @Dit do you remember what we decided about the summer party venue?',
          '',
          '## message from You (human)',
          '@Dit do you remember what we decided about the summer party venue?',
        ].join('\n'),
      ),
    );
    expect(text).toMatch(/you said: "we decided the summer party venue is the old lighthouse"\.$/);
  });

  it('hears news as news: a statement that says "decided" is no question to memory', () => {
    const text = participantReply(
      chat(
        'You are Ada.',
        '## message from Sam\nwe decided the summer party venue is the lighthouse',
      ),
    );
    expect(text).not.toMatch(/nothing|memory|remember/i);
    expect(text).toMatch(/^(Oh, nice, thanks for sharing!|That sounds lovely\.|Good to hear!)$/);
  });

  it('never quotes a line memory cut short', () => {
    const text = participantReply(
      chat(
        'You are Dit.',
        [
          '## message from Sam',
          'do you remember what we said about the raised beds?',
          '## Earlier conversations',
          '[#1 2026-11-20] Sam and Ana talked about the raised beds, the peppers and the…',
        ].join('\n'),
      ),
    );
    expect(text).not.toMatch(/peppers|…/);
  });

  it('never quotes a line that quotes someone itself', () => {
    const text = participantReply(
      chat(
        'You are Dit.',
        [
          '## message from Sam',
          'what did we say about the raised beds by the fence with cedar boards?',
          '## From the archive',
          '[#1 2026-11-20 18:02] Ana: the raised beds get the morning sun',
          '[#1 2026-11-20 18:03] Basil: Ana said: "the raised beds need cedar boards"',
          '[#1 2026-11-20 18:04] Cleo: Ana: "raised beds by the fence"',
        ].join('\n'),
      ),
    );
    expect(text).toMatch(/morning sun/);
    expect(text).not.toMatch(/need cedar|by the fence/);
    expect(text.match(/"/g)?.length ?? 0).toBeLessThanOrEqual(2);
  });

  it('never recalls another agent’s reply to the same message', () => {
    const asked = 'what is Dirigent good for?';
    const text = participantReply(
      chat(
        'You are Dit.',
        [
          '## Live transcript',
          '[#1] Sam: hey everyone',
          `[#1] Sam: @Dit ${asked}`,
          "[#1] Basil: Hmm, Dirigent. I'd like to hear what the others think.",
          '',
          '## message from Sam',
          `@Dit ${asked}`,
        ].join('\n'),
      ),
    );
    expect(text).not.toMatch(/Basil|said/);
    expect(text).toMatch(/offline/i);
  });

  it('does not take "my" in a plain question for a question about the asker’s words', () => {
    const text = participantReply(
      chat(
        'You are Ada.',
        [
          '## message from Sam',
          'can you write a script that renames my photos by date?',
          '## memory',
          'Sam: the summer party venue is the old lighthouse',
        ].join('\n'),
      ),
    );
    expect(text).not.toMatch(/lighthouse|summer/);
  });

  it('never takes a piece of the message for a topic of its reply', () => {
    const text = participantReply(
      chat('You are Ada.', '## message from Sam\nalso the snacks are on Ada this time'),
    );
    expect(text).not.toMatch(/snacks|Ada/);
  });

  it('greets the playground’s person without calling them "You (human)"', () => {
    const hi = participantReply(chat('You are Ada.', '## message from You (human)\nhey everyone!'));
    expect(hi).toMatch(/^(Hey|Hi|Hello)\b/);
    expect(hi).not.toMatch(/You \(human\)|, You/);
  });

  it('stays quiet on an unprompted turn with nothing in memory', () => {
    expect(
      participantReply(chat('You are Dit.', '## message\n(none: you speak up unprompted)')),
    ).toBe(NO_REPLY);
  });

  it('as the orchestrator: says what it can do, and that no coding CLI is configured', () => {
    const system =
      'You are the orchestrator. Decide whether to answer the user yourself or to delegate.';
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'delegate_to_research',
          description:
            "Delegate to the Research agent: looking things up in the community's memory.",
        },
      },
    ];
    const can = participantReply(chat(system, 'what can you do?', { tools }));
    expect(can).toMatch(/research \(looking things up/);
    expect(can).toMatch(/no coding CLI is configured/);
    const code = participantReply(
      chat(system, 'please write a python script that sorts my files', { tools }),
    );
    expect(code).toMatch(/no coding CLI is configured/);
  });
});

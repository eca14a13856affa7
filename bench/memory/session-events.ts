/**
 * What the two friends of `session-corpus.ts` live through, written for that corpus alone
 * (apart from `life-events.ts` and from the ranking's word tables). `tell` is the turn
 * that says it, `{rel}` a time relative to its session ("yesterday", "last week"); `reply`
 * the friend's answer; `ask` and `when` the questions, in other words than the turn's
 * where people would use other words; `near` turns by either speaker that touch the
 * same topic without telling it (distractors); `family` groups events for questions whose
 * answer is spread over sessions.
 */
export interface SessionEvent {
  family: Family;
  tell: string;
  reply: string;
  ask: string;
  when: string;
  near: string[];
}

export type Family = 'making' | 'outdoors' | 'people' | 'work' | 'body' | 'home';

/** Per family: a question whose evidence is every event of it a person told. */
export const FAMILY_QUESTIONS: Record<Family, { multi: string; open: string }> = {
  making: {
    multi: 'What creative things has {P} tried over the months?',
    open: 'Would {P} enjoy a weekend workshop on crafts?',
  },
  outdoors: {
    multi: 'Which outdoor trips has {P} been on?',
    open: 'Is {P} the kind of person who likes being outside?',
  },
  people: {
    multi: 'What has been going on in {P}’s family?',
    open: 'Who are the important people in {P}’s life?',
  },
  work: {
    multi: 'How has {P}’s job changed this year?',
    open: 'Which careers might {P} pursue?',
  },
  body: {
    multi: 'What has {P} done for fitness and health?',
    open: 'What motivates {P} to stay active?',
  },
  home: {
    multi: 'What changes has {P} made at home?',
    open: 'What kind of home life does {P} have?',
  },
};

export const SESSION_EVENTS: SessionEvent[] = [
  {
    family: 'making',
    tell: 'I finally went to that pottery class {rel}, my first bowl came out lopsided but I love it',
    reply: 'A lopsided bowl is still a bowl! You have to show me',
    ask: 'What did {P} make at the pottery class?',
    when: 'When did {P} go to a pottery class?',
    near: ['Do you think pottery is hard to pick up?', 'My cousin sells ceramics at the market'],
  },
  {
    family: 'making',
    tell: 'I painted a sunrise over the lake {rel}, it is the first canvas I have finished in years',
    reply: 'That sounds beautiful, are you going to hang it up?',
    ask: 'What did {P} paint?',
    when: 'When did {P} finish a painting of a sunrise?',
    near: ['The art shop had a sale on brushes', 'I never know what colours go together'],
  },
  {
    family: 'making',
    tell: 'I wrote the first chapter of my novel {rel}, it is about a lighthouse keeper',
    reply: 'A lighthouse keeper! I would read that',
    ask: 'What is {P}’s novel about?',
    when: 'When did {P} start writing a book?',
    near: ['Have you read anything good lately?', 'Writing every day sounds exhausting'],
  },
  {
    family: 'making',
    tell: 'I performed two songs on guitar at the open mic night {rel}, my hands were shaking',
    reply: 'Brave! Open mics are terrifying',
    ask: 'What did {P} play at the open mic?',
    when: 'When did {P} perform at an open mic?',
    near: ['My guitar needs new strings', 'There is a music night at the cafe sometimes'],
  },
  {
    family: 'making',
    tell: 'I knitted a scarf for my niece {rel}, bright yellow because she insisted',
    reply: 'Yellow suits kids, she will love it',
    ask: 'What did {P} knit and for whom?',
    when: 'When did {P} knit a scarf?',
    near: ['Wool is so expensive now', 'It is getting cold enough for scarves'],
  },
  {
    family: 'outdoors',
    tell: 'We went camping by the river {rel} and a raccoon stole our marshmallows',
    reply: 'Ha, cheeky raccoon! Was the rest of the trip good?',
    ask: 'What happened to {P}’s snacks on the camping trip?',
    when: 'When did {P} go camping?',
    near: ['I need a new tent one of these days', 'Camping in the rain is the worst'],
  },
  {
    family: 'outdoors',
    tell: 'I hiked up Mount Tallow {rel}, six hours and the view was worth every step',
    reply: 'Six hours! Your legs must hate you',
    ask: 'Which mountain did {P} climb?',
    when: 'When did {P} hike Mount Tallow?',
    near: ['My boots gave me blisters on the last walk', 'Hiking trails near us are always busy'],
  },
  {
    family: 'outdoors',
    tell: 'We took the kids to the beach {rel}, they built a sandcastle taller than my knee',
    reply: 'Beach days with kids are the best chaos',
    ask: 'What did {P}’s kids build at the beach?',
    when: 'When did {P} take the kids to the beach?',
    near: ['The beach is too crowded in summer', 'Sunscreen never lasts with kids'],
  },
  {
    family: 'outdoors',
    tell: 'I went kayaking on the bay {rel} and saw a seal pop up right next to me',
    reply: 'A seal! That is magical',
    ask: 'What animal did {P} see while kayaking?',
    when: 'When did {P} go kayaking?',
    near: ['Is kayaking safe when it is windy?', 'My friend wants to rent a boat this summer'],
  },
  {
    family: 'people',
    tell: 'My sister had her baby {rel}, a little girl called Ivy',
    reply: 'Congratulations, Auntie! Ivy is such a sweet name',
    ask: 'What is the name of {P}’s niece?',
    when: 'When was {P}’s niece born?',
    near: ['Babies are so tiny, I am scared to hold them', 'My sister keeps sending me photos'],
  },
  {
    family: 'people',
    tell: 'My grandfather turned ninety {rel}, we threw him a surprise party at the bowling alley',
    reply: 'Ninety and bowling! Legend',
    ask: 'Where was the surprise party for {P}’s grandfather?',
    when: 'When did {P}’s grandfather turn ninety?',
    near: ['Surprise parties stress me out', 'Grandpa still calls me every Sunday'],
  },
  {
    family: 'people',
    tell: 'My best friend from school moved back to town {rel}, we got dinner straight away',
    reply: 'That is lovely, old friends are the best',
    ask: 'Who moved back to {P}’s town?',
    when: 'When did {P}’s school friend return?',
    near: ['I lost touch with most people from school', 'Dinner out is so pricey lately'],
  },
  {
    family: 'people',
    tell: 'My parents celebrated their fortieth anniversary {rel} with a trip to Lisbon',
    reply: 'Forty years! What is their secret?',
    ask: 'Where did {P}’s parents go for their anniversary?',
    when: 'When was {P}’s parents’ fortieth anniversary?',
    near: ['Anniversaries are hard to buy gifts for', 'My parents argue about the thermostat'],
  },
  {
    family: 'people',
    tell: 'I went to the support group for new parents {rel}, it helped to hear I am not alone',
    reply: 'I am really glad you went, that takes guts',
    ask: 'What kind of group did {P} join?',
    when: 'When did {P} attend a support group?',
    near: ['Groups like that are not for everyone', 'Parenting advice online is so confusing'],
  },
  {
    family: 'work',
    tell: 'I got promoted to team lead {rel}, I will be managing four people now',
    reply: 'Well deserved! How do you feel about managing?',
    ask: 'What new role did {P} get at work?',
    when: 'When did {P} become a team lead?',
    near: ['Managers at my place never seem happy', 'Work has been quiet this month'],
  },
  {
    family: 'work',
    tell: 'I started an evening course in graphic design {rel}, I want to do it for a living',
    reply: 'Go you! You always had an eye for it',
    ask: 'What is {P} studying in the evenings?',
    when: 'When did {P} start a design course?',
    near: ['Courses are so expensive now', 'I saw an ad for a design job today'],
  },
  {
    family: 'work',
    tell: 'I volunteered at the animal shelter {rel}, I think I want to work with animals',
    reply: 'You would make a great vet nurse',
    ask: 'Where did {P} volunteer?',
    when: 'When did {P} volunteer at the shelter?',
    near: ['The shelter near us is always full', 'Volunteering is hard to fit in'],
  },
  {
    family: 'work',
    tell: 'I gave my first talk at a conference {rel}, about accessible websites',
    reply: 'That is huge! How did the questions go?',
    ask: 'What did {P} talk about at the conference?',
    when: 'When did {P} speak at a conference?',
    near: ['Conferences are mostly free coffee and queues', 'My slides never look right'],
  },
  {
    family: 'work',
    tell: 'I handed in my notice at the bank {rel}, I am done with spreadsheets',
    reply: 'Wow, big move! What is next?',
    ask: 'Which job did {P} quit?',
    when: 'When did {P} resign from the bank?',
    near: ['Banks keep closing branches near me', 'Spreadsheets at least pay the bills'],
  },
  {
    family: 'body',
    tell: 'I ran my first half marathon {rel}, two hours and ten minutes',
    reply: 'Two hours ten is a great first time!',
    ask: 'How long did {P}’s half marathon take?',
    when: 'When did {P} run a half marathon?',
    near: ['Running in the cold hurts my lungs', 'My neighbour runs every morning at six'],
  },
  {
    family: 'body',
    tell: 'I tried a yoga retreat {rel}, no phones for three whole days',
    reply: 'No phones! I could never',
    ask: 'What was the rule at {P}’s retreat?',
    when: 'When did {P} go on a yoga retreat?',
    near: ['Yoga makes me fall asleep', 'Retreats look nice on Instagram'],
  },
  {
    family: 'body',
    tell: 'I sprained my ankle playing football {rel}, I am on crutches for a week',
    reply: 'Oh no! Rest it properly this time',
    ask: 'How did {P} get injured?',
    when: 'When did {P} hurt their ankle?',
    near: ['Football on Sundays is getting competitive', 'My knees are not what they were'],
  },
  {
    family: 'body',
    tell: 'I passed the lifeguard exam {rel}. I am a certified lifeguard now!',
    reply: 'Amazing, the pool is lucky to have you',
    ask: 'What qualification did {P} earn?',
    when: 'When did {P} pass the lifeguard exam?',
    near: ['The pool near us is closed for repairs', 'Swimming lessons are booked out for months'],
  },
  {
    family: 'work',
    tell: 'I am a mentor for two new hires since {rel}, it is more rewarding than I expected',
    reply: 'They are lucky, you explain things so well',
    ask: 'Who is {P} mentoring at work?',
    when: 'When did {P} start mentoring?',
    near: [
      'New hires always look terrified in the first week',
      'Nobody mentored me when I started',
    ],
  },
  {
    family: 'body',
    tell: 'I joined a climbing gym {rel}, my forearms are on fire',
    reply: 'Climbing is addictive, watch out',
    ask: 'What kind of gym did {P} join?',
    when: 'When did {P} start climbing?',
    near: ['Gyms are so crowded in January', 'I keep meaning to stretch more'],
  },
  {
    family: 'home',
    tell: 'We adopted a rescue dog {rel}, a scruffy terrier called Biscuit',
    reply: 'Biscuit! I need to meet him',
    ask: 'What is {P}’s dog called?',
    when: 'When did {P} adopt a dog?',
    near: ['Dogs need so much walking', 'The neighbours’ dog barks all night'],
  },
  {
    family: 'home',
    tell: 'We moved into the new flat {rel}, it has a tiny balcony with a view of the park',
    reply: 'A balcony! Perfect for summer evenings',
    ask: 'What does {P}’s new place have?',
    when: 'When did {P} move house?',
    near: ['Moving boxes are taking over my hall', 'Rent keeps going up everywhere'],
  },
  {
    family: 'home',
    tell: 'I planted tomatoes and basil in the garden {rel}, fingers crossed the snails stay away',
    reply: 'Homegrown tomatoes taste so much better',
    ask: 'What did {P} plant?',
    when: 'When did {P} plant vegetables?',
    near: ['Gardening is harder than it looks', 'Snails ate all my lettuce last year'],
  },
  {
    family: 'home',
    tell: 'I repainted the kitchen a deep green {rel}, it took the whole weekend',
    reply: 'Green kitchens are so cosy',
    ask: 'What colour is {P}’s kitchen now?',
    when: 'When did {P} redecorate the kitchen?',
    near: ['Our kitchen still has the old tiles', 'Paint samples all look the same to me'],
  },
];

/** Times relative to a session: the words, and how far back they point (days). */
export const RELATIVE_TIMES: [string, number][] = [
  ['yesterday', 1],
  ['last week', 7],
  ['last weekend', 5],
  ['two days ago', 2],
  ['this morning', 0],
  ['last Saturday', 4],
  ['a few days ago', 3],
  ['last month', 30],
];

/** Small talk of two friends catching up, none of it about an event. */
export const CHAT = [
  'Hey! Long time no talk, how have you been?',
  'Pretty good, busy as always. You?',
  'Same here, the weeks just fly by',
  'That is so cool, I am happy for you',
  'Haha yes exactly',
  'Anyway, what else is new with you?',
  'Not much, just trying to keep up with everything',
  'I hear you, some weeks are like that',
  'Thanks, that means a lot',
  'We should catch up properly soon',
  'Totally, let me know when you are free',
  'Take care, talk soon!',
  'Bye! Say hi to everyone for me',
  'Oh wow, really?',
  "I'm a bit tired today, long week.",
  'I am a total mess before coffee, sorry!',
  'That made my day honestly',
  'I know right, I could not believe it either',
];

/**
 * What people in the recall corpus live through and how they talk about it. Each kind has
 * the lines a person says (`says`, with `{x}` a value drawn from `vals`), a friend's
 * prompt and the short answer it gets (the answer holds the fact but few of the topic's
 * words: its neighbour does), the questions asked about it later (`asks`: paraphrases
 * that mostly avoid the words said, `{P}` the person), and lines by the same people on
 * nearby topics that do not answer (`near`).
 */
export interface LifeEvent {
  id: string;
  vals: string[];
  says: string[];
  prompt: string[];
  answer: string[];
  asks: string[];
  near: string[];
}

export const LIFE_EVENTS: LifeEvent[] = [
  {
    id: 'pottery',
    vals: ['a pottery class', 'a ceramics workshop', 'a wheel-throwing course'],
    says: [
      'I signed up for {x} at the community center, my first bowl came out lopsided',
      'finally went to {x} downtown, my hands were covered in clay for hours',
    ],
    prompt: ['did you end up trying that clay thing you mentioned?'],
    answer: ['I did! {x}, twice now, my mugs are hilariously wonky'],
    asks: [
      'What class did {P} sign up for at the community center?',
      'What did {P} try with clay?',
      'Which hands-on art course did {P} enroll in?',
    ],
    near: [
      'my sister collects old ceramics, her shelves are full',
      'I dropped a bowl this morning',
    ],
  },
  {
    id: 'adoption',
    vals: ['adoption agencies', 'foster care programs', 'the adoption process'],
    says: [
      'I have been researching {x}, it has always been a dream to give a kid a home',
      'spent the evening reading about {x}, there is so much paperwork but I want a family',
    ],
    prompt: ['any progress on the family plans?'],
    answer: ['slowly, I looked into {x} and called two of them this week'],
    asks: [
      'What did {P} research for their future family?',
      'Which way of becoming a parent is {P} exploring?',
      'What progress has {P} made on family plans?',
    ],
    near: ['family dinner on sunday was loud as always', 'my cousin just had a baby'],
  },
  {
    id: 'painting',
    vals: ['painting', 'watercolors', 'oil painting'],
    says: [
      'I started {x} again after years, first canvas is a sunrise over the lake',
      'dug my old brushes out of the attic, back to {x} every evening',
    ],
    prompt: ['are you still doing art these days?'],
    answer: ['yes! back to {x}, I finished a sunset piece yesterday'],
    asks: [
      'When did {P} start painting again?',
      'What did {P} get out of the attic?',
      'What artistic habit did {P} resume?',
    ],
    near: [
      'we need to repaint the hallway, the walls are scuffed',
      'the museum had a nice exhibit',
    ],
  },
  {
    id: 'marathon',
    vals: ['a half marathon', 'the city marathon', 'a 10k race'],
    says: [
      'I registered for {x} in the spring, training starts monday',
      'ran 18 kilometers this morning getting ready for {x}, legs are jelly',
    ],
    prompt: ['how did the race go in the end?'],
    answer: ['finished {x} under two hours, so happy'],
    asks: [
      'What race was {P} training for?',
      'How did {P} do in the running competition?',
      'Which endurance challenge did {P} register for?',
    ],
    near: ['my running shoes are falling apart', 'I walked the dog around the park'],
  },
  {
    id: 'job',
    vals: ['a nursing job', 'a position at the library', 'a teaching job'],
    says: [
      'I got offered {x} at the hospital across town, I start in two weeks',
      'big news, I accepted {x}, goodbye to the old office',
    ],
    prompt: ['any news on the interviews?'],
    answer: ['they called today, it is {x} and I said yes'],
    asks: [
      'What job offer did {P} accept?',
      'What news did {P} get after the interviews?',
      'What new employment did {P} take?',
    ],
    near: ['work has been hectic this month', 'my manager wants another report'],
  },
  {
    id: 'dog',
    vals: ['Biscuit', 'Mochi', 'Pepper', 'Luna'],
    says: [
      'we adopted a puppy from the shelter, we named her {x}',
      'meet {x}, our new rescue dog, she already chewed a slipper',
    ],
    prompt: ['did you get the puppy from the shelter in the end?'],
    answer: ['we did, her name is {x} and she sleeps on my feet'],
    asks: [
      'What is the name of the dog {P} adopted?',
      'What did {P} call the puppy from the shelter?',
      "Which four-legged friend joined {P}'s household?",
    ],
    near: ['the neighbours dog barks all night', 'I am more of a cat person honestly'],
  },
  {
    id: 'move',
    vals: ['Lisbon', 'Denver', 'Montreal', 'Osaka'],
    says: [
      'we are moving to {x} next month, boxes everywhere',
      'signed the lease in {x} today, new city new life',
    ],
    prompt: ['so where are you relocating to?'],
    answer: ['{x}, we fly out on the 3rd'],
    asks: [
      'Which city is {P} moving to?',
      'Where is {P} relocating?',
      'What new place did {P} settle in?',
    ],
    near: ['the movers quoted a crazy price for my friend', 'I love visiting new cities'],
  },
  {
    id: 'guitar',
    vals: ['guitar', 'the violin', 'piano'],
    says: [
      'I have been practicing {x} every night, my fingers hurt',
      'bought a second hand {x} and I am learning chords from videos',
    ],
    prompt: ['what instrument were you learning again?'],
    answer: ['{x}! still terrible but improving'],
    asks: [
      'Which instrument is {P} learning?',
      'What music skill has {P} been practicing?',
      'What does {P} play in the evenings?',
    ],
    near: ['that concert was way too loud', 'my playlist needs new songs'],
  },
  {
    id: 'book',
    vals: [
      'a novel about lighthouse keepers',
      'a memoir by a mountain climber',
      'a mystery set in Venice',
    ],
    says: [
      'I could not put down {x}, read it in two nights',
      'book club picked {x}, I am halfway through',
    ],
    prompt: ['read anything good lately?'],
    answer: ['{x}, highly recommend'],
    asks: [
      'What book could {P} not put down?',
      'What has {P} read lately?',
      'Which story kept {P} up at night?',
    ],
    near: ['the library fines are ridiculous', 'I never finish audiobooks'],
  },
  {
    id: 'garden',
    vals: ['tomatoes', 'sunflowers', 'strawberries'],
    says: [
      'planted {x} in the backyard, hoping the squirrels leave them alone',
      'my {x} finally sprouted, gardening is weirdly calming',
    ],
    prompt: ['how is the backyard project?'],
    answer: ['the {x} are coming up nicely'],
    asks: [
      'What did {P} plant in the backyard?',
      "How is {P}'s backyard project going?",
      'What crop is {P} cultivating at home?',
    ],
    near: ['mowing the lawn takes forever', 'the park roses smelled lovely'],
  },
  {
    id: 'volunteer',
    vals: ['the food bank', 'an animal shelter', 'a youth mentoring program'],
    says: [
      'I started volunteering at {x} on saturdays, it feels good to help',
      'spent the morning helping out at {x}, exhausting but worth it',
    ],
    prompt: ['what are you doing with your weekends now?'],
    answer: ['mostly {x}, saturdays from nine to one'],
    asks: [
      'Where has {P} been volunteering?',
      'What does {P} do on weekends now?',
      'What charity work is {P} involved in?',
    ],
    near: ['donated old clothes last week', 'the community center needs new chairs'],
  },
  {
    id: 'trip',
    vals: ['Iceland', 'the Scottish highlands', 'Patagonia', 'Kyoto'],
    says: [
      'just booked a hiking trip to {x} for the summer',
      'back from {x}, the landscapes were unreal and my boots are wrecked',
    ],
    prompt: ['where did you go on vacation?'],
    answer: ['{x}, ten days of walking and rain'],
    asks: [
      'Where did {P} go hiking?',
      'Where did {P} go on vacation?',
      'What country did {P} visit on holiday?',
    ],
    near: ['airport security lines were awful', 'I need a holiday so badly'],
  },
  {
    id: 'injury',
    vals: ['sprained my ankle', 'broke my wrist', 'hurt my back'],
    says: [
      'I {x} skateboarding with my nephew, so embarrassing',
      'doctor confirmed I {x}, no sports for six weeks',
    ],
    prompt: ['why were you limping the other day?'],
    answer: ['I {x}, it is healing though'],
    asks: [
      "What did the doctor confirm about {P}'s injury?",
      'Why was {P} limping?',
      'Why did {P} have to stop exercising?',
    ],
    near: ['my back is stiff from the desk chair', 'the clinic was packed today'],
  },
  {
    id: 'cooking',
    vals: ['sourdough bread', 'homemade ramen', 'vegan curry'],
    says: [
      'I taught myself to make {x} this weekend, the kitchen was a disaster',
      'my {x} turned out great, third attempt',
    ],
    prompt: ['what were you cooking in that photo?'],
    answer: ['{x}! took all afternoon'],
    asks: [
      'What did {P} teach themselves to make?',
      'What was {P} cooking in the photo?',
      'Which meal did {P} make from scratch?',
    ],
    near: ['ordered takeout again lol', 'the grocery store was out of eggs'],
  },
  {
    id: 'degree',
    vals: ['counseling', 'computer science', 'social work'],
    says: [
      'I enrolled in a night program for {x}, classes start in the fall',
      'thinking about going back to school for {x}, I want to help people',
    ],
    prompt: ['are you still thinking about studying again?'],
    answer: ['yes, {x}, I applied last week'],
    asks: [
      'What program did {P} enroll in?',
      'What is {P} thinking about studying?',
      'Which career is {P} considering pursuing?',
    ],
    near: [
      'my old school is holding a reunion',
      'homework for my nephew is harder than I remember',
    ],
  },
  {
    id: 'camping',
    vals: ['the lake', 'the national forest', 'the coast'],
    says: [
      'took the kids camping at {x}, we roasted marshmallows and saw shooting stars',
      'tent is packed, heading to {x} for the long weekend',
    ],
    prompt: ['how was the trip with the kids?'],
    answer: ['magical, {x} was so quiet at night'],
    asks: [
      'Where did {P} take the kids camping?',
      "How was {P}'s trip with the kids?",
      'Where did {P} pitch a tent?',
    ],
    near: ['the kids have a school play next week', 'I hate bugs so much'],
  },
  {
    id: 'support-group',
    vals: ['an LGBTQ support group', 'a grief support circle', 'a new parents meetup'],
    says: [
      'I went to {x} yesterday and it was so powerful, people were so open',
      'joined {x} last night, I did not expect to cry that much',
    ],
    prompt: ['how did the meeting go?'],
    answer: ['it was {x}, everyone shared their stories'],
    asks: [
      'What group did {P} go to that felt powerful?',
      'How did the meeting go for {P}?',
      'Where did {P} find people who understand them?',
    ],
    near: ['the meeting at work ran over again', 'I am not great in big groups'],
  },
  {
    id: 'car',
    vals: ['an electric hatchback', 'a used pickup truck', 'a vintage convertible'],
    says: ['we bought {x}, no more taking the bus', 'traded in the old sedan for {x} today'],
    prompt: ['what did you end up driving home from the dealer?'],
    answer: ['{x}, it is silly but I love it'],
    asks: [
      'What did {P} buy instead of taking the bus?',
      'What did {P} drive home from the dealer?',
      'Which automobile did {P} get?',
    ],
    near: ['traffic on the highway was awful', 'my bike has a flat tire'],
  },
];

/** Chit-chat that answers nothing: greetings, reactions, small talk. */
export const SMALL_TALK = [
  'hey! how have you been?',
  'that is awesome, I am so happy for you',
  'haha yes exactly',
  'how was your week?',
  'long day at work, finally home',
  'that sounds amazing',
  'wow, tell me more',
  'I totally get that',
  'good morning everyone',
  'the weather has been so gloomy',
  'I need more coffee',
  'did you watch the game last night?',
  'thanks for asking, things are okay',
  'let us catch up soon',
  'so proud of you',
  'that made my day',
  'I have been so busy lately',
  'oh no, that is rough',
  'we should celebrate',
  'sending hugs',
  'what are your plans for the weekend?',
  'same here honestly',
  'glad to hear it',
  'take care of yourself',
  'any fun plans coming up?',
  'I saw a funny video about cats today',
  'my phone battery dies so fast',
  'can not believe it is already that time of year',
];

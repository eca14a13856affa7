/**
 * The memory bench's synthetic guild: filler chat over 20 channels from 200 people, 50
 * planted facts (each with a keyword query and a paraphrased question that shares no
 * content word with it) and 20 facts that change later (an old and a current value).
 */

const FIRST =
  'Ada Basil Clio Dara Emil Fenna Gus Hana Ivo Jana Kai Lena Milo Nia Otto Pia Quinn Rhea Sami Tove'.split(
    ' ',
  );
const LAST = 'Berg Costa Dahl Eriks Frey Gallo Holm Ito Jensen Kova'.split(' ');

/** 200 distinct display names. */
export const NAMES = FIRST.flatMap((f) => LAST.map((l) => `${f} ${l}`));

const SUBJECTS = (
  'the build|this patch|the new release|my laptop|the meeting|that movie|the game last night|' +
  'the deploy|our backlog|the weather|lunch|the standup|the docs|the flaky test|the rewrite|' +
  'the playlist|coffee|the trip|the budget|the bug tracker|the keyboard|the wiki'
).split('|');
const VERBS = (
  'looks fine|is broken again|needs another pass|was great|took forever|is overrated|' +
  'surprised me|made no sense|is finally done|keeps timing out|could be simpler|was fun|' +
  'needs a review|is on fire|went well|is blocked|feels slow|is a mess'
).split('|');
const TAILS = (
  'honestly|lol|imo|for now|again|tbh|I think|right?|anyway|as usual|today|I guess|' +
  'if you ask me|at least|somehow|'
).split('|');

/** A deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function filler(rand: () => number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  return `${pick(SUBJECTS)} ${pick(VERBS)} ${pick(TAILS)}`.trim();
}

/** A fact as said in chat, a keyword query and a paraphrase without shared content words. */
export interface PlantedFact {
  text: string;
  keyword: string;
  paraphrase: string;
}

export const FACTS: PlantedFact[] = [
  [
    'I finally started learning photography on weekends',
    'learning photography',
    'which photographer takes pictures',
  ],
  [
    'my grandmother taught me woodworking in her garage',
    'woodworking garage',
    'is anybody a woodworker',
  ],
  [
    'calligraphy classes every tuesday are my happy place',
    'calligraphy classes',
    'who does calligraphic lettering',
  ],
  [
    'I spent the night at the observatory doing astronomy',
    'observatory astronomy',
    'any astronomers around',
  ],
  [
    'my pottery wheel arrived and the kitchen is covered in clay',
    'pottery wheel clay',
    'who became a potter',
  ],
  [
    'we adopted a greyhound named Pickles from the shelter',
    'greyhound Pickles',
    'whose adoption involved a hound',
  ],
  [
    'my daughter won the regional chess tournament',
    'chess tournament daughter',
    'which kid plays chessboard competitions',
  ],
  [
    'I am training for the Berlin marathon in september',
    'Berlin marathon training',
    'who runs marathons',
  ],
  ['our band recorded an album in a barn in Wales', 'band album barn', 'who records albums'],
  ['I broke my wrist snowboarding in Andorra', 'wrist snowboarding', 'who got hurt on a snowboard'],
  [
    'my sourdough starter is named Clint Yeastwood',
    'sourdough starter name',
    'whose leaven has a funny nickname',
  ],
  ['I volunteer at the hospice on sunday mornings', 'volunteer hospice', 'who does volunteering'],
  [
    'we are renovating a farmhouse near Porto',
    'renovating farmhouse Porto',
    'whose renovation is rural',
  ],
  ['I got certified as a scuba diver in Egypt', 'scuba diver certified', 'who dives underwater'],
  [
    'my cat knocked the aquarium off the shelf',
    'cat aquarium shelf',
    'whose aquariums got wrecked',
  ],
  [
    'I collect vintage typewriters, I have eleven now',
    'vintage typewriters collect',
    'who is a typewriter collector',
  ],
  [
    'my partner proposed on a glacier in Iceland',
    'proposed glacier Iceland',
    'whose proposal was icelandic',
  ],
  [
    'I switched my thesis to marine biology',
    'thesis marine biology',
    'who studies biological oceans',
  ],
  ['our twins start kindergarten next month', 'twins kindergarten', 'who has a kindergartener'],
  ['I was a lifeguard every summer in high school', 'lifeguard summer', 'who did lifeguarding'],
  ['I keep bees on the roof of our apartment', 'keep bees roof', 'who is a beekeeper'],
  [
    'my uncle runs a vineyard in Mendoza',
    'uncle vineyard Mendoza',
    'whose relatives make vineyards',
  ],
  [
    'I translated a novel from Finnish last year',
    'translated novel Finnish',
    'who is a translator',
  ],
  [
    'I play the cello in a community orchestra',
    'cello orchestra',
    'who is a cellist in orchestras',
  ],
  [
    'our startup got acquired by a bank',
    'startup acquired bank',
    'whose company had an acquisition',
  ],
  ['I climbed Kilimanjaro for my fortieth birthday', 'climbed Kilimanjaro', 'who is a climber'],
  ['I am allergic to peanuts and shellfish', 'allergic peanuts shellfish', 'who has allergies'],
  ['my first job was at a planetarium', 'first job planetarium', 'who worked in planetariums'],
  [
    'I restore old motorcycles in my shed',
    'restore motorcycles shed',
    'who does motorcycle restoration',
  ],
  [
    'I knit sweaters for every new baby in the family',
    'knit sweaters baby',
    'who is into knitting',
  ],
  [
    'my neighbour is a retired astronaut',
    'neighbour retired astronaut',
    'who lives beside astronauts',
  ],
  [
    'I won a pie baking contest at the county fair',
    'pie baking contest',
    'who bakes pies competitively',
  ],
  [
    'I speak fluent Japanese from living in Osaka',
    'fluent Japanese Osaka',
    'who is fluently japan speaking',
  ],
  [
    'my grandfather was a lighthouse keeper',
    'grandfather lighthouse keeper',
    'whose ancestors kept lighthouses',
  ],
  ['I foster kittens for the animal rescue', 'foster kittens rescue', 'who does fostering'],
  [
    'I build mechanical keyboards as a hobby',
    'mechanical keyboards hobby',
    'who is a keyboard builder',
  ],
  ['our wedding was on a ferry to Helsinki', 'wedding ferry Helsinki', 'who got wed aboard'],
  ['I coach the under twelve football team', 'coach football team', 'who does coaching'],
  ['I am learning to fly gliders', 'learning gliders', 'who pilots a glider'],
  [
    'I once met the Dalai Lama at an airport',
    'met Dalai Lama airport',
    'who encountered a tibetan monk at a terminal',
  ],
  [
    'my mum is a volcanologist in Hawaii',
    'mum volcanologist Hawaii',
    'whose mother studies volcanoes',
  ],
  [
    'I grow chillies on the balcony, forty plants',
    'grow chillies balcony',
    'who is growing chilli',
  ],
  ['I ran a marathon dressed as a banana', 'marathon dressed banana', 'who wore bananas'],
  ['my brother is a paramedic in Glasgow', 'brother paramedic Glasgow', 'whose sibling paramedics'],
  ['I learned sign language for my nephew', 'sign language nephew', 'who signs'],
  ['I have a pet tortoise who is sixty years old', 'pet tortoise sixty', 'who owns tortoises'],
  [
    'I restore stained glass windows for churches',
    'stained glass windows churches',
    'who does window restoration',
  ],
  [
    'I did a silent retreat in a monastery for ten days',
    'silent retreat monastery',
    'who retreated to monasteries',
  ],
  [
    'I speedrun old platformer games on stream',
    'speedrun platformer games',
    'who is a speedrunner',
  ],
  [
    'my aunt invented a patented umbrella',
    'aunt patented umbrella',
    'whose relative invents umbrellas',
  ],
].map(([text, keyword, paraphrase]) => ({ text, keyword, paraphrase }));

const CITIES = (
  'Paris Berlin Lisbon Madrid Vienna Prague Oslo Dublin Warsaw Athens Rome Zurich Krakow Seville ' +
  'Bergen Lyon Tallinn Riga Porto Ghent Utrecht Bruges Turin Malmo Leipzig Gdansk Valencia Split ' +
  'Bologna Aarhus Graz Salzburg Nantes Bilbao Basel Cork Galway Vilnius Sofia Zagreb'
).split(' ');

/** 20 people who move: the old city, then the current one. */
export const MOVES = Array.from({ length: 20 }, (_, i) => ({
  old: CITIES[i * 2],
  current: CITIES[i * 2 + 1],
}));

import { terms } from './analyze';

/**
 * Everyday words that stand for one another in conversation, by topic: a question asks
 * with one ("vacation", "automobile", "enroll") what was said with another ("trip", "car",
 * "signed up"). Hand-written and general (the topics people talk about in a chat: family,
 * work, school, home, health, pets, hobbies, travel, food, feelings), not fitted to any
 * corpus; each group is a neighbourhood, not a synonym set.
 */
const GROUPS = [
  'vacation holiday trip travel journey getaway visit visited abroad tour',
  'country city town place abroad overseas',
  'hike hiking trek trail mountain climb',
  'camp camping tent campsite campfire outdoors',
  'beach sea ocean coast shore swim swimming surf',
  'car automobile vehicle drive driving hatchback sedan suv truck dealer',
  'bike bicycle cycling ride biking',
  'job work career employment position role hired offer office employer occupation profession',
  'interview interviews hiring applied application',
  'boss manager supervisor coworker colleague',
  'quit resign resigned fired laid layoff',
  'school study studying degree program course class college university education classes student enroll enrolled enrolling',
  'teacher professor mentor tutor coach',
  'exam test grade graduate graduated graduation diploma',
  'register registered signed signup enroll enrolled join joined membership',
  'workshop class course lesson lessons session',
  'book novel memoir story read reading author library chapter',
  'movie film cinema watched series show documentary',
  'music song songs band concert playlist album singer',
  'instrument guitar piano violin drums ukulele cello clarinet flute chords play playing practice practicing',
  'paint painting painted canvas brush brushes art artist artistic drawing sketch portrait',
  'pottery ceramics clay wheel bowl mug mugs kiln',
  'photo photograph picture camera photography',
  'garden gardening plant planted plants seeds backyard vegetables tomatoes herbs crop grow growing',
  'cook cooking cooked recipe bake baking kitchen meal dinner homemade scratch chef',
  'food eat ate restaurant lunch breakfast dish',
  'dog puppy pup pet pets rescue shelter cat kitten',
  'kid kids child children son daughter baby toddler',
  'family parent parents mom dad mother father sister brother cousin',
  'adopt adoption adopting foster agency agencies',
  'wedding married marry engaged fiance fiancee spouse husband wife',
  'partner boyfriend girlfriend dating date relationship',
  'friend friends buddy pal',
  'move moving moved relocate relocating relocation lease apartment house home settle settled',
  'race marathon run running runner jog jogging kilometers miles training endurance',
  'gym workout exercise fitness yoga lift lifting',
  'sport sports game match team football soccer basketball tennis',
  'injury injured hurt broke broken sprained fracture cast surgery hospital doctor physio recovery',
  'sick ill illness flu cold fever disease diagnosis diagnosed',
  'health healthy therapy therapist counseling counselor mental',
  'volunteer volunteering volunteered charity donate donation nonprofit fundraiser helping',
  'church faith religion religious pray prayer spiritual',
  'money salary pay paid budget savings loan rent bills',
  'buy bought purchase purchased shopping store',
  'birthday anniversary celebration party celebrate celebrated',
  'happy glad excited thrilled joy proud',
  'sad upset down depressed lonely grief',
  'stress stressed anxious anxiety overwhelmed relax relaxing destress unwind calm calming',
  'support group community meeting meetup',
  'pride lgbtq transgender queer gay lesbian',
  'speech talk presentation lecture conference',
  'game gaming videogame console',
  'write writing wrote blog journal poem poetry essay',
  'weather rain snow sunny storm',
  'sleep tired exhausted insomnia',
  'learn learning learned teach taught lesson',
  'start started begin began resume resumed again',
  'finish finished complete completed done',
];

/** Stemmed term → the stemmed terms of its groups (itself excluded). */
const RELATED = new Map<string, Set<string>>();
for (const group of GROUPS) {
  const ts = [...new Set(terms(group))];
  for (const t of ts) {
    const set = RELATED.get(t) ?? new Set<string>();
    for (const u of ts) if (u !== t) set.add(u);
    RELATED.set(t, set);
  }
}

/**
 * The terms related to the analysed query terms (none of them among the query's own).
 *
 * @example
 * relatedTerms(terms('Where did Ana go on vacation?')); // ['holidai', 'trip', 'travel', …]
 */
export function relatedTerms(queryTerms: readonly string[]): string[] {
  const own = new Set(queryTerms);
  const out = new Set<string>();
  for (const t of own) for (const r of RELATED.get(t) ?? []) if (!own.has(r)) out.add(r);
  return [...out];
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { Subjects, subject } from '@dirigent/contracts';
import { wireNames } from './contract-names';
import { ROOT, codeSpans, normaliseSubject, readDoc } from './markdown';
import { productionSources } from './sources';

/**
 * docs/architecture.md may mark a section (or a line) **specified, not yet implemented**: contract
 * the code does not serve yet. This test fails when such a mark covers a subject that
 * libs/contracts spells AND a handler serves — the doc would say the code lacks what it has.
 * Served subjects are read from the production code of services/ and libs/: the first
 * argument of `@EventPattern` / `@MessagePattern`, of `.subscribe(…)` and `.serve(…)`, and
 * every `filterSubject` / `filter_subject`, wherever it is built from `Subjects.…` or a
 * `subject.…(…)` builder (resolved through the contracts module; any other part of a template
 * reads as `*`).
 */

const DOC = 'docs/architecture.md';
const MARK = /not yet implemented/i;
const PATTERN_DECORATORS = new Set(['EventPattern', 'MessagePattern']);
const SUBSCRIBING_CALLS = new Set(['subscribe', 'serve']);
const FILTER_PROPERTIES = new Set(['filterSubject', 'filter_subject']);

export interface Served {
  pattern: string;
  site: string;
}

/** The names of a property access chain (`Subjects.memory.forget`), or null. */
function accessPath(node: ts.Expression): string[] | null {
  if (ts.isIdentifier(node)) return [node.text];
  if (ts.isPropertyAccessExpression(node)) {
    const left = accessPath(node.expression);
    return left && [...left, node.name.text];
  }
  return null;
}

interface Resolved {
  value: string;
  /** Built from the contracts (not a bare literal). */
  contract: boolean;
}

/** The subjects an expression stands for, when it is built from literals and the contracts. */
function resolve(node: ts.Expression): Resolved[] | null {
  if (ts.isStringLiteralLike(node)) return [{ value: node.text, contract: false }];
  if (
    ts.isParenthesizedExpression(node) ||
    ts.isAsExpression(node) ||
    ts.isSatisfiesExpression(node)
  ) {
    return resolve(node.expression);
  }
  if (ts.isPropertyAccessExpression(node)) {
    const path = accessPath(node);
    if (path?.[0] !== 'Subjects') return null;
    const value = path
      .slice(1)
      .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], Subjects);
    return typeof value === 'string' ? [{ value, contract: true }] : null;
  }
  if (ts.isTemplateExpression(node)) {
    let out: Resolved[] = [{ value: node.head.text, contract: false }];
    for (const span of node.templateSpans) {
      const part = resolve(span.expression) ?? [{ value: '*', contract: false }];
      out = out.flatMap((o) =>
        part.map((p) => ({
          value: o.value + p.value + span.literal.text,
          contract: o.contract || p.contract,
        })),
      );
    }
    return out;
  }
  if (ts.isCallExpression(node)) {
    const path = accessPath(node.expression);
    const build = path?.length === 2 && path[0] === 'subject' ? path[1] : undefined;
    const builder = build && (subject as unknown as Record<string, unknown>)[build];
    if (typeof builder !== 'function') return null;
    const args = node.arguments.map((a) => {
      const r = resolve(a);
      return r?.length === 1 ? r[0].value : '*';
    });
    return [{ value: (builder as (...a: string[]) => string)(...args), contract: true }];
  }
  if (ts.isArrayLiteralExpression(node)) {
    const parts = node.elements.map((e) => resolve(e as ts.Expression));
    return parts.some((p) => p) ? parts.flatMap((p) => p ?? []) : null;
  }
  return null;
}

/** The subjects a source file's handlers and subscriptions serve (built from the contracts). */
export function servedIn(file: string, text: string): Served[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const served: Served[] = [];
  const add = (node: ts.Expression | undefined) => {
    if (!node) return;
    const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    for (const r of resolve(node) ?? []) {
      if (r.contract) served.push({ pattern: r.value, site: `${file}:${line}` });
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isDecorator(node) && ts.isCallExpression(node.expression)) {
      const name = accessPath(node.expression.expression)?.at(-1);
      if (name && PATTERN_DECORATORS.has(name)) add(node.expression.arguments[0]);
    } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      if (SUBSCRIBING_CALLS.has(node.expression.name.text)) add(node.arguments[0]);
    } else if (ts.isPropertyAssignment(node) && FILTER_PROPERTIES.has(node.name.getText(source))) {
      add(node.initializer);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return served;
}

export function servedSubjects(): Served[] {
  return [...productionSources('services'), ...productionSources('libs')]
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => servedIn(f, readFileSync(join(ROOT, f), 'utf8')));
}

/**
 * Whether a NATS pattern (`*` one token, `>` the rest) takes a subject; a placeholder token
 * (`<>` once normalised) on either side stands for any token.
 */
export function takes(pattern: string, subjectName: string): boolean {
  const p = normaliseSubject(pattern).split('.');
  const s = normaliseSubject(subjectName).split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== s[i] && p[i] !== '*' && p[i] !== '<>' && s[i] !== '<>') return false;
  }
  return p.length === s.length;
}

/**
 * The subjects (code spans starting `dirigent.`) a doc marks as not yet implemented: under a
 * heading carrying the mark (down to the next heading of its level or above), or on a line
 * carrying it.
 */
export function markedUnimplemented(markdown: string): string[] {
  const lines = markdown.replace(/^```[\s\S]*?^```/gm, '').split('\n');
  const marked: string[] = [];
  let level = 0; // the level of the marked heading we are under; 0: none
  for (const line of lines) {
    const heading = line.match(/^(#{1,6})\s/);
    if (heading) {
      const depth = heading[1].length;
      if (level && depth <= level) level = 0;
      if (!level && MARK.test(line)) level = depth;
    }
    if (level || MARK.test(line)) marked.push(line);
  }
  return [...new Set(codeSpans(marked.join('\n')).filter((s) => s.startsWith('dirigent.')))];
}

/** The marked subjects that the contracts spell and a handler serves, with where. */
export function markedButServed(markdown: string, served: Served[]): string[] {
  const spelled = new Set(wireNames().map((n) => normaliseSubject(n.value)));
  return markedUnimplemented(markdown)
    .filter((s) => spelled.has(normaliseSubject(s)))
    .flatMap((s) => {
      const by = served.find((x) => takes(x.pattern, s));
      return by ? [`${s} (served: ${by.pattern} at ${by.site})`] : [];
    });
}

describe('docs/architecture.md marks as unimplemented only what no handler serves', () => {
  const served = servedSubjects();

  it('reads the handlers of the code', () => {
    const patterns = served.map((s) => s.pattern);
    expect(patterns).toEqual(
      expect.arrayContaining([
        'dirigent.memory.forget',
        'dirigent.discord.rpc.create-thread',
        'dirigent.discord.evt.>',
        'dirigent.discord.cmd.>',
        'dirigent.llm.usage',
        'dirigent.turn.granted.*',
        'dirigent.timer.fired.*.>',
      ]),
    );
  });

  it('marks no subject that the contracts spell and a handler serves', () => {
    // A subject listed here is served: move it to its service's table (say what is).
    expect(markedButServed(readDoc(DOC), served)).toEqual([]);
  });

  it('notices a served subject marked as unimplemented, by section or by line', () => {
    const doc = [
      '## Memory',
      '| `dirigent.memory.search` | request/reply |',
      '## Later — specified, not yet implemented',
      '| `dirigent.memory.forget` | request/reply |',
      '| `dirigent.memory.someday` | request/reply |',
      '### A part of it',
      'Also `dirigent.discord.evt.<g>.guild.joined`.',
      '## Model gateway',
      '`dirigent.llm.chat` is served; `dirigent.llm.embed` is not yet implemented.',
    ].join('\n');
    expect(markedUnimplemented(doc)).toEqual([
      'dirigent.memory.forget',
      'dirigent.memory.someday',
      'dirigent.discord.evt.<g>.guild.joined',
      'dirigent.llm.chat',
      'dirigent.llm.embed',
    ]);
    expect(markedButServed(doc, served).map((s) => s.split(' ')[0])).toEqual([
      'dirigent.memory.forget',
      'dirigent.discord.evt.<g>.guild.joined',
      'dirigent.llm.chat',
      'dirigent.llm.embed',
    ]);
  });

  it('resolves decorators, subscriptions and filters built from the contracts', () => {
    const text = [
      'class H {',
      "  @EventPattern(`${Subjects.timer.firedPrefix}.${NAME}.>`, { stream: 'x' })",
      '  a() {}',
      '  @MessagePattern(Subjects.memory.forget) b() {}',
      "  @MessagePattern('plain.literal') c() {}",
      '  @MessagePattern(LOCAL) d() {}',
      '}',
      'nc.subscribe(Subjects.turn.grantedAll, {});',
      "const spec = { filterSubject: subject.aggregate('channel', '>') };",
    ].join('\n');
    expect(servedIn('h.ts', text)).toEqual([
      { pattern: `${Subjects.timer.firedPrefix}.*.>`, site: 'h.ts:2' },
      { pattern: Subjects.memory.forget, site: 'h.ts:4' },
      { pattern: Subjects.turn.grantedAll, site: 'h.ts:8' },
      { pattern: subject.aggregate('channel', '>'), site: 'h.ts:9' },
    ]);
    expect(takes('dirigent.discord.evt.>', 'dirigent.discord.evt.<g>.guild.joined')).toBe(true);
    expect(takes('dirigent.discord.evt.>', 'dirigent.discord.evt')).toBe(false);
    expect(takes('dirigent.turn.check', 'dirigent.turn.complete.<c>')).toBe(false);
  });
});

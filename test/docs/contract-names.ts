import { join } from 'node:path';
import ts from 'typescript';
import * as contracts from '@dirigent/contracts';
import { Buckets, Durables, EnvelopeTypes, Streams, Subjects, subject } from '@dirigent/contracts';
import { ROOT } from './markdown';

/**
 * Every wire name libs/contracts spells: each value of `Subjects` (walked recursively), each
 * subject a `subject.*` builder makes (called with placeholders, and with every value of a
 * literal-typed parameter), each stream, durable, bucket and envelope type.
 */

const SUBJECTS_FILE = join(ROOT, 'libs/contracts/src/subjects.ts');

/**
 * Arguments for builders that do more with an argument than put it in a token; a builder that
 * loses a placeholder and has no entry here fails the test, asking for one.
 */
const SAMPLE_ARGS: Record<string, string[][]> = {
  relayed: [['<instance>', Subjects.turn.check]],
};

export interface WireName {
  /** Where it is spelled, e.g. `Subjects.memory.search` or `subject.tool('register')`. */
  source: string;
  value: string;
  /** A prefix (`…Prefix`, `prefix`): documented by any subject that starts with it. */
  prefix?: boolean;
}

function walkSubjects(node: unknown, path: string, out: WireName[]): void {
  if (typeof node === 'string') {
    out.push({ source: path, value: node, prefix: /prefix$/i.test(path) });
  } else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) walkSubjects(value, `${path}.${key}`, out);
  }
}

let parameters: Map<string, string[][]> | undefined;

/** For each builder of `subject`, the values each parameter takes (a placeholder for a string). */
function builderParameters(): Map<string, string[][]> {
  if (parameters) return parameters;
  const program = ts.createProgram([SUBJECTS_FILE], {
    lib: ['lib.es2022.d.ts'],
    types: [],
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(SUBJECTS_FILE)!;
  const builders = new Map<string, string[][]>();
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      node.name.getText(source) === 'subject' &&
      node.initializer &&
      ts.isObjectLiteralExpression(node.initializer)
    ) {
      for (const prop of node.initializer.properties) {
        if (!ts.isPropertyAssignment(prop) || !ts.isArrowFunction(prop.initializer)) continue;
        const params = prop.initializer.parameters.map((p) => {
          const type = checker.getTypeAtLocation(p);
          const members = type.isUnion() ? type.types : [type];
          const literals = members.filter((t) => t.isStringLiteral()).map((t) => t.value);
          return literals.length === members.length ? literals : [`<${p.name.getText(source)}>`];
        });
        builders.set(prop.name.getText(source), params);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  parameters = builders;
  return builders;
}

const product = (lists: string[][]): string[][] =>
  lists.reduce<string[][]>((acc, list) => acc.flatMap((a) => list.map((v) => [...a, v])), [[]]);

export function builtSubjects(): { names: WireName[]; unsampled: string[] } {
  const names: WireName[] = [];
  const unsampled: string[] = [];
  const build = subject as unknown as Record<string, (...args: string[]) => string>;
  const params = builderParameters();
  for (const name of Object.keys(subject)) {
    const calls = SAMPLE_ARGS[name] ?? product(params.get(name) ?? []);
    for (const args of calls) {
      const value = build[name](...args);
      const lost = args.filter((a) => a.startsWith('<') && !value.includes(a));
      if (lost.length && !SAMPLE_ARGS[name]) unsampled.push(name);
      names.push({ source: `subject.${name}(${args.join(', ')})`, value });
    }
  }
  return { names, unsampled: [...new Set(unsampled)] };
}

export function wireNames(): WireName[] {
  const out: WireName[] = [];
  walkSubjects(Subjects, 'Subjects', out);
  out.push(...builtSubjects().names);
  const maps: [string, Record<string, string>][] = [
    ['Streams', Streams],
    ['Durables', Durables],
    ['Buckets', Buckets],
    ['EnvelopeTypes', EnvelopeTypes],
  ];
  // Every other `…EventTypes` map the contracts export (memory's, the router's, later ones).
  for (const [name, value] of Object.entries(contracts)) {
    if (/EventTypes$/.test(name) && value && typeof value === 'object') {
      maps.push([name, value as Record<string, string>]);
    }
  }
  for (const [map, values] of maps) {
    for (const [key, value] of Object.entries(values)) out.push({ source: `${map}.${key}`, value });
  }
  return out;
}

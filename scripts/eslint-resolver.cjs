/* global require, exports, __dirname */
/* eslint-disable @typescript-eslint/no-require-imports -- eslint-module-utils loads a resolver with require() */
'use strict';
// The import resolver of eslint-plugin-boundaries (eslint.config.mjs): a `@dirigent/<lib>`
// specifier resolves as tsconfig.json's `paths` say, everything else as Node resolves it
// (with the .ts extension), so an import of a lib by its alias lands in that lib's folder.
const path = require('node:path');
const fs = require('node:fs');
const node = require('eslint-import-resolver-node');

const ROOT = path.resolve(__dirname, '..');
const PATHS = JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')).compilerOptions
  .paths;

exports.interfaceVersion = 2;
exports.resolve = (source, file, config) => {
  const mapped = PATHS[source];
  const target = mapped ? path.join(ROOT, mapped[0]) : source;
  return node.resolve(target, file, { extensions: ['.ts', '.js', '.json'], ...config });
};

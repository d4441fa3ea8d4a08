// TextMate grammar test over the parser corpus (tests/corpus/valid and malformed).
//
// The vox lexer itself is the oracle: editors/test/lexdump prints its tokens. For every character of every
// token, the grammar's outermost scope (ignoring meta.*) must be one the token's kind accepts: every token class
// is scoped, and no scope is claimed for characters of another class (no string or comment scope leaking past
// the lexer's token, no keyword scope on a name, nothing scoped on whitespace between tokens).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const EDITORS = path.resolve(__dirname, '..', '..', '..');
const REPO = path.resolve(EDITORS, '..');
const CORPUS = process.env.VOX_CORPUS || path.join(REPO, 'tests', 'corpus');
const GRAMMAR = path.resolve(__dirname, '..', '..', 'syntaxes', 'voxscript.tmLanguage.json');

function lexdump() {
  if (process.env.VOX_LEXDUMP) return process.env.VOX_LEXDUMP;
  const dir = path.join(EDITORS, 'test', 'lexdump');
  const bin = path.join(dir, 'target', 'release', 'vox-lexdump');
  // Cheap when nothing changed; picks up lexer changes of the syntax crate.
  execFileSync('cargo', ['build', '--release', '--quiet', '--locked', '--manifest-path', path.join(dir, 'Cargo.toml')], {
    stdio: 'inherit',
    env: { ...process.env, CARGO_TARGET_DIR: path.join(dir, 'target') },
  });
  return bin;
}

function corpusFiles() {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.vox')) out.push(p);
    }
  };
  walk(path.join(CORPUS, 'valid'));
  walk(path.join(CORPUS, 'malformed'));
  out.push(path.join(__dirname, 'edge-cases.vox'));
  return out.sort();
}

const MEMBER = ['variable.other.property', 'variable.other.key', 'entity.name.function.member'];
const KEYWORD_KINDS = [
  'FnKw', 'LetKw', 'MutKw', 'IfKw', 'ElseKw', 'WhileKw', 'LoopKw', 'BreakKw', 'ContinueKw', 'MatchKw', 'ForKw', 'InKw',
  'ReturnKw', 'TypeKw', 'ImportKw', 'PubKw', 'AsyncKw', 'AndKw', 'OrKw', 'NotKw', 'IsKw', 'IsntKw',
];
const OPERATOR_KINDS = [
  'Eq', 'EqEq', 'BangEq', 'Lt', 'Gt', 'LtEq', 'GtEq', 'Plus', 'Minus', 'Star', 'Slash', 'Percent', 'PlusEq', 'MinusEq',
  'StarEq', 'SlashEq', 'Pipe', 'PipeGt', 'FatArrow', 'ThinArrow', 'Question', 'AmpAmp', 'PipePipe',
];
const PUNCT_KINDS = ['LParen', 'RParen', 'LBracket', 'RBracket', 'LBrace', 'RBrace', 'Comma', 'Colon'];

/** Scope prefixes each lexer token kind accepts as the outermost non-meta scope of its characters. */
function accepted(kind, text) {
  if (kind === 'Comment') return ['comment'];
  if (kind === 'Str') return ['string'];
  if (kind === 'Int') return ['constant.numeric.integer'];
  if (kind === 'Float') return ['constant.numeric.float'];
  if (kind === 'Decimal') return ['constant.numeric.decimal'];
  if (kind === 'Ident') {
    const base = ['variable', 'entity.name.function', 'entity.name.namespace', 'support.function', 'support.type'];
    if (text === 'null') base.push('constant.language.null');
    if (text === 'to') base.push('keyword.other.return-type');
    return base;
  }
  if (kind === 'TypeIdent') return ['entity.name.type', 'support.type', ...MEMBER];
  if (kind === 'AtName') return ['punctuation.definition.decorator', 'entity.name.function.decorator'];
  if (KEYWORD_KINDS.includes(kind)) return ['keyword', 'storage', ...MEMBER];
  if (kind === 'TrueKw' || kind === 'FalseKw') return ['constant.language.boolean', ...MEMBER];
  if (kind === 'NonScriptKw') return ['keyword.other.reserved', ...MEMBER];
  if (OPERATOR_KINDS.includes(kind)) return ['keyword.operator'];
  if (PUNCT_KINDS.includes(kind)) return ['punctuation'];
  if (kind === 'Dot') return ['punctuation.accessor'];
  if (kind === 'DotDot') return ['invalid.illegal.range'];
  if (kind === 'Bang') return ['invalid.illegal.bang'];
  if (kind === 'Semicolon') return ['punctuation.terminator'];
  if (kind === 'ErrorChar') return ['invalid.illegal.character'];
  throw new Error(`grammar test: no expectation for lexer kind ${kind}`);
}

/** The outermost scope that says what a character is (meta.* only groups). */
function primary(scopes) {
  for (let i = 1; i < scopes.length; i++) if (!scopes[i].startsWith('meta.')) return scopes[i];
  return null;
}

async function loadGrammar() {
  const wasm = fs.readFileSync(path.join(path.dirname(require.resolve('vscode-oniguruma')), 'onig.wasm')).buffer;
  await oniguruma.loadWASM(wasm);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (p) => new oniguruma.OnigScanner(p),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) =>
      scopeName === 'source.vox' ? vsctm.parseRawGrammar(fs.readFileSync(GRAMMAR, 'utf8'), GRAMMAR) : null,
  });
  return registry.loadGrammar('source.vox');
}

/** Per UTF-16 offset of `text`: the scopes the grammar gives it (null for line breaks). */
function scopeMap(grammar, text) {
  const map = new Array(text.length).fill(null);
  let stack = vsctm.INITIAL;
  let offset = 0;
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const r = grammar.tokenizeLine(line, stack, 60000);
    if (r.stoppedEarly) throw new Error('tokenization stopped early (time limit)');
    for (const t of r.tokens) {
      for (let i = t.startIndex; i < Math.min(t.endIndex, line.length); i++) map[offset + i] = t.scopes;
    }
    stack = r.ruleStack;
    offset += raw.length + 1;
  }
  return map;
}

const SKIP = new Set(['Newline', 'Bom', 'Eof']);

/** Checks one file; returns {failures, counts}. */
function checkFile(grammar, file, tokens) {
  const bytes = fs.readFileSync(file);
  const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  // The editor's text: the decoded tokens, without the BOM (editors strip it).
  const pieces = [];
  let text = '';
  for (let i = 0; i < tokens.length - 1; i++) {
    const [kind, start] = tokens[i];
    const end = tokens[i + 1][1];
    const s = kind === 'Bom' ? '' : decoder.decode(bytes.subarray(start, end));
    pieces.push({ kind, from: text.length, to: text.length + s.length, text: s });
    text += s;
  }
  const map = scopeMap(grammar, text);
  const failures = [];
  const counts = {};
  const lineOf = (off) => {
    const before = text.slice(0, off);
    const line = before.split('\n').length;
    return `${line}:${off - before.lastIndexOf('\n')}`;
  };
  for (const p of pieces) {
    if (SKIP.has(p.kind)) continue;
    counts[p.kind] = (counts[p.kind] || 0) + 1;
    const ok = p.kind === 'Whitespace' ? null : accepted(p.kind, p.text);
    for (let i = p.from; i < p.to; i++) {
      const ch = text[i];
      if (ch === '\n' || ch === '\r') continue;
      const scopes = map[i] || ['source.vox'];
      const prim = primary(scopes);
      let bad;
      if (p.kind === 'Whitespace') bad = prim !== null ? `whitespace claimed as ${prim}` : null;
      else if (prim === null) bad = 'unscoped';
      else if (!ok.some((a) => prim === a || prim.startsWith(a + '.'))) bad = `scoped ${prim}, expected ${ok.join(' | ')}`;
      if (bad) {
        failures.push(`${path.relative(CORPUS, file)}:${lineOf(i)} ${p.kind} ${JSON.stringify(p.text.slice(0, 40))}: ${bad}`);
        break; // one report per token
      }
    }
  }
  return { failures, counts };
}

test('the TextMate grammar scopes every lexer token of the corpus as its class', async () => {
  const grammar = await loadGrammar();
  const files = corpusFiles();
  assert.ok(files.length > 100, `corpus at ${CORPUS} has ${files.length} files`);
  const out = execFileSync(lexdump(), files, { maxBuffer: 256 * 1024 * 1024 }).toString('utf8');
  const dumps = out.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(dumps.length, files.length);
  const failures = [];
  const counts = {};
  for (const d of dumps) {
    const r = checkFile(grammar, d.file, d.tokens);
    failures.push(...r.failures);
    for (const [k, n] of Object.entries(r.counts)) counts[k] = (counts[k] || 0) + n;
  }
  const kinds = Object.keys(counts).sort();
  console.log(`${files.length} files, ${Object.values(counts).reduce((a, b) => a + b, 0)} tokens of ${kinds.length} kinds checked`);
  console.log(`kinds: ${kinds.map((k) => `${k}=${counts[k]}`).join(' ')}`);
  if (failures.length) {
    console.log(failures.slice(0, 60).map((f) => `  ${f}`).join('\n'));
  }
  assert.equal(failures.length, 0, `${failures.length} tokens mis-scoped (first: ${failures[0]})`);
});

module.exports = { accepted, primary, loadGrammar, scopeMap };

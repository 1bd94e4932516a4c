// Cheap checks that keep the code's shape true (shared/style.md §7): folders named in the design
// note, imports pointing one way, only src/ffi importing koffi, file-size caps, and the native and
// TypeScript status tables agreeing.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES } from '../../src/errors.js';
import { NATIVE_STATUS } from '../../src/ffi/status.js';
import { statusName } from '../../src/ffi/native.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function walk(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const rel = (p: string) => path.relative(root, p);
const lines = (p: string) => readFileSync(p, 'utf8').split('\n').length;

describe('code shape', () => {
  it('every src/ and native/ folder is described in docs/architecture.md', () => {
    const doc = readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');
    for (const top of ['src', 'native']) {
      for (const e of readdirSync(path.join(root, top))) {
        if (!statSync(path.join(root, top, e)).isDirectory()) continue;
        assert.ok(doc.includes(`${top}/${e}`), `docs/architecture.md does not mention ${top}/${e}`);
      }
    }
  });

  const sources = walk(path.join(root, 'src')).filter((p) => p.endsWith('.ts'));
  const importsOf = (p: string) => [...readFileSync(p, 'utf8').matchAll(/from '([^']+)'|import\('([^']+)'/g)].map((m) => m[1] ?? m[2]!);

  it('only src/ffi imports koffi', () => {
    for (const p of sources) {
      if (rel(p).startsWith('src/ffi/')) continue;
      assert.ok(!importsOf(p).includes('koffi'), `${rel(p)} imports koffi`);
    }
  });

  it('imports point one way: formats → nothing; ffi → errors/log; engine ↛ cli/server; nothing imports server or cli', () => {
    const banned: Record<string, string[]> = {
      'src/formats/': ['/engine/', '/ffi/', '/cli/', '/dev/', '/server/', '/client/', '/rpc/'],
      'src/ffi/': ['/engine/', '/cli/', '/dev/', '/formats/', '/server/', '/client/', '/rpc/'],
      'src/engine/': ['/cli/', '/dev/', '/server/', '/client/', '/rpc/'],
      'src/rpc/': ['/engine/', '/ffi/', '/formats/', '/cli/', '/dev/', '/server/', '/client/'],
      'src/server/': ['/cli/', '/client/', '/dev/', '/ffi/'],
      'src/client/': ['/cli/', '/server/', '/ffi/', '/dev/'],
      'src/report/': ['/engine/', '/ffi/', '/formats/', '/cli/', '/dev/', '/server/', '/client/', '/rpc/'],
    };
    for (const p of sources) {
      for (const [folder, bad] of Object.entries(banned)) {
        if (!rel(p).startsWith(folder)) continue;
        for (const imp of importsOf(p)) {
          assert.ok(!bad.some((b) => imp.includes(b.slice(0, -1) + '/') || imp.startsWith(`.${b}`) || imp.startsWith(`..${b}`)), `${rel(p)} imports ${imp}`);
        }
      }
    }
  });

  it('src/client loads no native code: from engine and formats it takes types only', () => {
    for (const p of sources.filter((f) => rel(f).startsWith('src/client/'))) {
      const text = readFileSync(p, 'utf8');
      for (const m of text.matchAll(/^(import|export)(.*) from '(\.\.\/(engine|formats)\/[^']+)'/gm)) {
        assert.match(m[0], /^(import|export) type /, `${rel(p)}: ${m[0]} must be type-only`);
        assert.ok(['../engine/api.js', '../formats/proof-json.js'].includes(m[3]!), `${rel(p)} imports ${m[3]}`);
      }
    }
  });

  it("log calls take pino's shape, fields first: log.info({ jobId }, 'msg')", () => {
    // pino would read log.info('msg', { fields }) as a format argument and drop the fields; its types allow it
    const oldShape = /\b(?:log|logger)\.(?:trace|debug|info|warn|error|fatal)\(\s*(?:'[^'\n]*'|"[^"\n]*"|`[^`\n]*`)\s*,/g;
    for (const p of sources) {
      for (const m of readFileSync(p, 'utf8').matchAll(oldShape)) assert.fail(`${rel(p)}: ${m[0]} puts the message before the fields`);
    }
  });

  it('files stay under the hard caps (TS 600, native 700, tests 1000 lines)', () => {
    const caps: [string, RegExp, number][] = [
      ['src', /\.ts$/, 600],
      ['native', /\.(hpp|cpp|h|cuh|cu)$/, 700],
      ['test', /\.ts$/, 1000],
    ];
    for (const [dir, re, cap] of caps) {
      // generated code (protoc-gen-es, src/rpc/gen) is exempt: it is not edited by hand
      for (const p of walk(path.join(root, dir)).filter((f) => re.test(f) && !f.includes('/vectors/') && !rel(f).startsWith('src/rpc/gen/'))) {
        assert.ok(lines(p) <= cap, `${rel(p)} has ${lines(p)} lines (cap ${cap})`);
      }
    }
  });

  it('native layering: a file includes its own folder and layers below only (docs/architecture.md)', () => {
    const nativeDir = path.join(root, 'native');
    // below everything: the ABI, the error type every layer throws, the thread pool and GPU helpers
    const base = ['include/', 'api/guard.hpp', 'util/thread_pool.', 'util/check.hpp', 'util/gpu.hpp'];
    const ranks: [string, number][] = [['field/', 1], ['curve/', 2], ['ntt/', 3], ['msm/', 3], ['pairing/', 3], ['util/gpu_dispatch.', 4], ['groth16/', 5], ['api/', 6], ['tools/', 7]];
    const rank = (r: string) => (base.some((b) => r.startsWith(b)) ? 0 : ranks.find(([dir]) => r.startsWith(dir))?.[1]);
    const folder = (r: string) => r.split('/')[0];
    for (const file of walk(nativeDir).filter((f) => /\.(hpp|cpp|h|cuh|cu)$/.test(f))) {
      const from = path.relative(nativeDir, file);
      const own = rank(from);
      assert.notEqual(own, undefined, `native/${from}: no layer (add it to this test and docs/architecture.md)`);
      for (const m of readFileSync(file, 'utf8').matchAll(/^#include "([^"]+)"/gm)) {
        const near = path.join(path.dirname(file), m[1]!);
        const target = path.relative(nativeDir, existsSync(near) ? near : path.join(nativeDir, m[1]!));
        const r = rank(target);
        assert.ok(r !== undefined && existsSync(path.join(nativeDir, target)), `native/${from} includes ${m[1]} (not found)`);
        assert.ok(folder(target) === folder(from) || r < own! || r === 0, `native/${from} (layer ${own}) includes native/${target} (layer ${r})`);
      }
    }
  });

  it("README's byte sizes are what they say in JavaScript (8 << 30 is 0)", () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const sizes = [...readme.matchAll(/\b(pinned|host|gpu|bytes): ([0-9][0-9 *<>x_()]*[0-9)])/g)];
    assert.ok(sizes.length > 0, 'the createEngine example names a memory size');
    for (const [text, , expr] of sizes) {
      const v = Function(`return (${expr})`)() as number;
      assert.ok(Number.isSafeInteger(v) && v >= 2 ** 20, `README: ${text} is ${v} bytes`);
    }
  });

  it('native status names and the TypeScript code table agree', () => {
    const nativeToTs: Record<string, string> = { CUZK_E_VERIFY: 'E_PROOF_INVALID' };
    NATIVE_STATUS.forEach((code, i) => {
      const name = statusName(i);
      if (i === 0) return assert.equal(name, 'CUZK_OK');
      const expected = nativeToTs[name] ?? name.replace(/^CUZK_/, '');
      assert.equal(code, expected, `status ${i}: native ${name}, TS ${code}`);
      assert.ok((ERROR_CODES as readonly string[]).includes(code as string));
    });
    assert.equal(statusName(NATIVE_STATUS.length), 'CUZK_E_UNKNOWN', 'native has statuses the TS table lacks');
  });
});

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

const NATIVE_SOURCE = /\.(hpp|cpp|h|cuh|cu|inc)$/;
// native/'s layers, bottom up (docs/architecture.md): a file includes files of its own folder and of
// lower layers only; folders of one layer do not include each other. include/ is the C ABI.
const NATIVE_LAYERS = [['include'], ['util'], ['field'], ['curve'], ['ntt', 'msm', 'pairing'], ['groth16'], ['api'], ['tools'], ['witness']];

/** Every `#include "..."` in `files` (paths relative to native/ → text) that breaks the layering. */
function nativeLayerViolations(files: Map<string, string>): string[] {
  const folder = (r: string) => r.split('/')[0]!;
  const layer = (r: string) => NATIVE_LAYERS.findIndex((l) => l.includes(folder(r)));
  const out: string[] = [];
  for (const [from, text] of files) {
    const own = layer(from);
    if (own < 0) {
      out.push(`native/${from}: no layer (add it to NATIVE_LAYERS and docs/architecture.md)`);
      continue;
    }
    for (const m of text.matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)) {
      // as the compiler looks: beside the including file first, then from native/ (the -I root)
      const near = path.posix.normalize(path.posix.join(path.posix.dirname(from), m[1]!));
      const target = files.has(near) ? near : path.posix.normalize(m[1]!);
      if (!files.has(target)) {
        out.push(`native/${from} includes ${m[1]} (not found)`);
        continue;
      }
      if (folder(target) !== folder(from) && !(layer(target) < own)) out.push(`native/${from} (${folder(from)}) includes native/${target} (${folder(target)})`);
    }
  }
  return out;
}
/** The import circles of a module graph (file → the files it imports), each as the files around it
 * from its smallest name, once; depth-first with the path on a stack (Tarjan's colours). */
export function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 'open') {
        const circle = stack.slice(stack.indexOf(g));
        const at = circle.indexOf([...circle].sort()[0]!);
        const canonical = [...circle.slice(at), ...circle.slice(0, at)];
        found.set(canonical.join(' → '), canonical);
      } else if (!state.has(g) && graph.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f);
  return [...found.values()];
}

/** src/'s module graph: every relative import and re-export (type-only ones too), `.js` read as the `.ts` file. */
function sourceGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const specs = [...readFileSync(f, 'utf8').matchAll(/from '(\.[^']+)'|import\('(\.[^']+)'\)/g)].map((m) => m[1] ?? m[2]!);
    graph.set(rel(f), specs.map((s) => rel(path.resolve(path.dirname(f), s.replace(/\.js$/, '.ts')))));
  }
  return graph;
}

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

  it('src/ has no import circle', () => {
    assert.deepEqual(importCircles(sourceGraph(sources)).map((c) => c.join(' → ')), []);
  });

  it('the circle check finds each circle once, from its smallest name, type-only imports too', () => {
    const files = new Map([
      ['a.ts', ['b.ts', 'x.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']], // a → b → c → a
      ['x.ts', ['y.ts']], ['y.ts', ['x.ts']], // x ⇄ y, reached from a
      ['z.ts', ['z.ts']], ['w.ts', ['a.ts', 'gone.ts']],
    ]);
    assert.deepEqual(importCircles(files).map((c) => c.join(' → ')).sort(), ['a.ts → b.ts → c.ts', 'x.ts → y.ts', 'z.ts']);
    assert.deepEqual(importCircles(sourceGraph([path.join(root, 'test/meta/structure.test.ts')])), [], 'no false circle from a file that imports others');
  });

  it("src/server's top level holds only the façade (daemon.ts) and the composition root (compose.ts)", () => {
    const top = readdirSync(path.join(root, 'src/server')).filter((e) => statSync(path.join(root, 'src/server', e)).isFile());
    assert.deepEqual(top.sort(), ['compose.ts', 'daemon.ts']);
  });

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
      ['native', /\.(hpp|cpp|h|cuh|cu|inc)$/, 700],
      ['test', /\.ts$/, 1000],
    ];
    for (const [dir, re, cap] of caps) {
      // generated code (protoc-gen-es, src/rpc/gen) is exempt: it is not edited by hand
      for (const p of walk(path.join(root, dir)).filter((f) => re.test(f) && !f.includes('/vectors/') && !rel(f).startsWith('src/rpc/gen/'))) {
        assert.ok(lines(p) <= cap, `${rel(p)} has ${lines(p)} lines (cap ${cap})`);
      }
    }
  });

  it('the XYZZ point formulas are one text for host and device (curve/xyzz_formulas.inc)', () => {
    for (const f of ['native/curve/xyzz.hpp', 'native/curve/xyzz.cuh']) {
      const text = readFileSync(path.join(root, f), 'utf8');
      assert.match(text, /#include "xyzz_formulas\.inc"/, `${f} includes the shared formulas`);
      assert.doesNotMatch(text, /R\.sqr\(\)|U\.sqr\(\)/, `${f} writes no formula of its own`);
    }
  });

  it('native layering: a file includes its own folder and layers below only (docs/architecture.md)', () => {
    const nativeDir = path.join(root, 'native');
    const files = new Map(walk(nativeDir).filter((f) => NATIVE_SOURCE.test(f)).map((f) => [path.relative(nativeDir, f), readFileSync(f, 'utf8')]));
    assert.deepEqual(nativeLayerViolations(files), []);
  });

  it('the native layering check catches an include against the direction, an unknown folder and a missing file', () => {
    const files = new Map([
      ['util/error.hpp', '#include "../include/cuzk.h"\n'],
      ['include/cuzk.h', ''],
      ['field/mont.hpp', '#include "../util/error.hpp"\n'],
      ['util/bad.hpp', '#include "../field/mont.hpp"\n'],
      ['groth16/bad.hpp', '#include "api/guard.hpp"\n'],
      ['msm/bad.cuh', '#include "../ntt/ntt.cuh"\n#include "../curve/gone.hpp"\n'],
      ['misc/x.hpp', ''],
      ['tools/t.cu', '#include "../api/guard.hpp"\n'],
      ['api/guard.hpp', '#include "util/error.hpp"\n'],
      ['ntt/ntt.cuh', ''],
    ]);
    assert.deepEqual(nativeLayerViolations(files), [
      'native/util/bad.hpp (util) includes native/field/mont.hpp (field)',
      'native/groth16/bad.hpp (groth16) includes native/api/guard.hpp (api)',
      'native/msm/bad.cuh (msm) includes native/ntt/ntt.cuh (ntt)',
      'native/msm/bad.cuh includes ../curve/gone.hpp (not found)',
      'native/misc/x.hpp: no layer (add it to NATIVE_LAYERS and docs/architecture.md)',
    ]);
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

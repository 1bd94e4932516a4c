// package.json's engines.node agrees with what every installed package declares (package-lock.json,
// dev packages too: `npm install` installs and checks them all), so npm prints no EBADENGINE on the
// oldest Node cuzk says it supports, and a dependency update that raises the floor fails here first.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const json = (f: string) => JSON.parse(readFileSync(path.join(root, f), 'utf8')) as Record<string, unknown>;

type Version = [number, number, number];
const parse = (v: string): Version => {
  const [a = 0, b = 0, c = 0] = v.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : 0));
  return [a, b, c];
};
const cmp = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `v` satisfies a semver range of the forms engines fields use (>=, >, <=, <, ^, ~, x-ranges, ||). */
function satisfies(v: Version, range: string): boolean {
  return range.split('||').some((clause) => {
    const parts = clause.trim().replace(/([<>]=?|[\^~])\s+/g, '$1').split(/\s+/).filter(Boolean);
    return parts.every((c) => {
      if (c === '*' || c === 'x') return true;
      const m = /^(>=|<=|>|<|\^|~|=)?v?([\dx*.]+)$/.exec(c);
      if (!m) throw new Error(`unparsed engines range "${range}"`);
      const op = m[1] ?? '';
      const fields = m[2]!.split('.');
      const w = parse(m[2]!);
      const wild = fields.findIndex((f) => f === 'x' || f === '*');
      const given = wild < 0 ? fields.length : wild;
      switch (op) {
        case '>=': return cmp(v, w) >= 0;
        case '>': return cmp(v, w) > 0;
        case '<=': return cmp(v, w) <= 0;
        case '<': return cmp(v, w) < 0;
        case '^': return cmp(v, w) >= 0 && v[0] === w[0];
        case '~': return cmp(v, w) >= 0 && v[0] === w[0] && (given < 2 || v[1] === w[1]);
        default: return v.slice(0, given).every((n, i) => n === w[i]);
      }
    });
  });
}

describe('engines', () => {
  const ours = (json('package.json').engines as { node: string }).node;
  const floor = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(ours);

  it('the range reader reads the shapes in the lock', () => {
    assert.equal(satisfies([20, 20, 2], '>=22'), false);
    assert.equal(satisfies([22, 0, 0], '20.x || 22.x || 23.x'), true);
    assert.equal(satisfies([21, 0, 0], '20.x || 22.x'), false);
    assert.equal(satisfies([20, 0, 0], '^16 || ^18 || >=20'), true);
    assert.equal(satisfies([20, 18, 0], '>= 20.19.0'), false);
    assert.equal(satisfies([22, 0, 0], '>= 10.x'), true);
  });

  it(`package.json's engines.node (${ours}) is a floor every installed package accepts`, () => {
    assert.ok(floor, `engines.node "${ours}" is not of the form >=N`);
    const v = parse(floor[1]!);
    const lock = json('package-lock.json').packages as Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    const refuse: string[] = [];
    for (const [where, p] of Object.entries(lock)) {
      const range = !where || Array.isArray(p.engines) ? undefined : p.engines?.node;
      if (range && !satisfies(v, range)) refuse.push(`${where.replace(/^.*node_modules\//, '')}@${p.version} needs node ${range}`);
    }
    assert.deepEqual(refuse, [], `Node ${floor[1]} (package.json) is refused by: ${refuse.join('; ')}`);
  });

  it("README's quick start names the same floor", () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const major = floor![1]!.split('.')[0];
    assert.match(readme, new RegExp(`Needs Node\\.js ${major}\\+`));
  });
});

import { describe, expect, it } from 'vitest';
import { layerFindings, roomOf } from './import-layers.ts';

const src = '/x/src';
const f = (p: string) => `${src}/${p}`;
const layers = { layers: [['errors.ts'], ['db/', 'hot/'], ['pipeline/'], ['services.ts']], pending: { imports: [] as string[] } };

describe('import layers', () => {
  it('names the room a file stands in', () => {
    expect(roomOf(f('pipeline/stage/a.ts'), src)).toBe('pipeline/');
    expect(roomOf(f('services.ts'), src)).toBe('services.ts');
  });

  it('lets imports run down and within a room', () => {
    const graph = new Map([
      [f('services.ts'), [f('pipeline/a.ts'), f('errors.ts')]],
      [f('pipeline/a.ts'), [f('pipeline/b.ts'), f('db/x.ts')]],
      [f('pipeline/b.ts'), []],
    ]);
    expect(layerFindings(graph, layers, src)).toEqual([]);
  });

  it('refuses an import up a layer, and one across its own layer', () => {
    const graph = new Map([
      [f('pipeline/a.ts'), [f('services.ts')]],
      [f('db/x.ts'), [f('hot/y.ts')]],
    ]);
    expect(layerFindings(graph, layers, src)).toEqual([
      'db/x.ts -> hot/y.ts: db/ (layer 1) imports hot/ (layer 1), a room of its own layer',
      'pipeline/a.ts -> services.ts: pipeline/ (layer 2) imports services.ts (layer 3), a higher room',
    ]);
  });

  it('asks every room to be placed', () => {
    expect(layerFindings(new Map([[f('newroom/a.ts'), []]]), layers, src)).toEqual(['room newroom/ has no layer in apps/api/layers.json']);
  });

  it('holds pending imports to what still runs back up: the list only shrinks', () => {
    const pending = { ...layers, pending: { imports: ['pipeline/a.ts -> services.ts', 'db/x.ts -> pipeline/a.ts'] } };
    const graph = new Map([[f('pipeline/a.ts'), [f('services.ts')]]]);
    expect(layerFindings(graph, pending, src)).toEqual(['pending import db/x.ts -> pipeline/a.ts no longer runs back up: take it off apps/api/layers.json']);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasAnyPermission, hasPermission, ALL_PERMISSIONS } from './access.js';
import { buildTree } from './menu.js';
import { rowIndex } from './paging.js';

describe('row index', () => {
  it('THEME-04: numbering continues across pages', () => {
    expect(rowIndex(1, 10, 0)).toBe(1);
    expect(rowIndex(2, 10, 0)).toBe(11);
    expect(rowIndex(3, 20, 4)).toBe(45);
  });

  it('is consecutive across a page boundary (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.constantFrom(10, 20, 50, 100), (page, size) => {
        expect(rowIndex(page + 1, size, 0)).toBe(rowIndex(page, size, size - 1) + 1);
      }),
    );
  });
});

describe('permissions', () => {
  it('grants a listed code and everything to the all-permissions holder', () => {
    expect(hasPermission(['sys:user:add'], 'sys:user:add')).toBe(true);
    expect(hasPermission(['sys:user:add'], 'sys:user:remove')).toBe(false);
    expect(hasPermission([ALL_PERMISSIONS], 'sys:org:menu')).toBe(true);
    expect(hasAnyPermission(['study:edit'], ['study:add', 'study:edit'])).toBe(true);
    expect(hasAnyPermission([], ['study:add'])).toBe(false);
  });
});

describe('buildTree', () => {
  it('nests rows under their parents and keeps orphans as roots, without touching the input', () => {
    interface Row {
      id: number;
      parentId: number;
      children?: Row[];
    }
    const rows: Row[] = [
      { id: 1, parentId: 0 },
      { id: 2, parentId: 1 },
      { id: 3, parentId: 2 },
      { id: 4, parentId: 99 },
    ];
    const tree = buildTree(rows, (r) => r.id);
    expect(tree.map((n) => n.id)).toEqual([1, 4]);
    expect(tree[0]!.children![0]!.children![0]!.id).toBe(3);
    expect(rows[0]).toEqual({ id: 1, parentId: 0 });
  });

  it('keeps every row exactly once (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 30 }), (parents) => {
        type Row = { id: number; parentId: number; children?: Row[] };
        const rows: Row[] = parents.map((parentId, i) => ({ id: i + 1, parentId: parentId % (i + 1) }));
        const count = (nodes: Row[]): number => nodes.reduce((n, node) => n + 1 + count(node.children ?? []), 0);
        expect(count(buildTree(rows, (r) => r.id))).toBe(rows.length);
      }),
    );
  });
});

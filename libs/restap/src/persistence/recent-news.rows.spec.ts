import { RecentNewsRows, type RecentRow } from './recent-news.rows';

/** A row as node-postgres hands it over: bigint columns as text. */
const raw = (id: number, body = `{"type":"t","n":${id}}`): RecentRow => ({ id: String(id), ts: String(1_700_000_000_000 + id), type: 't', chars: body.length, cut: false, body });
const cut = (id: number, preview: string, chars: number): RecentRow => ({ ...raw(id, preview), chars, cut: true });

describe('RecentNewsRows (a recent read\'s rows as StoredNews)', () => {
  it('hands the rows out oldest first, ids as text and timestamps as numbers, cut rows with their length and type', () => {
    const rows = new RecentNewsRows();
    expect(rows.of([cut(3, '{"type":"big","d', 9000), raw(2), raw(1)])).toEqual([
      { id: '1', ts: 1_700_000_000_001, body: '{"type":"t","n":1}' },
      { id: '2', ts: 1_700_000_000_002, body: '{"type":"t","n":2}' },
      { id: '3', ts: 1_700_000_000_003, body: '{"type":"big","d', cut: { chars: 9000, type: 't' } },
    ]);
    expect(rows.of([])).toEqual([]);
  });

  it('hands a row read again unchanged out as the same frozen object', () => {
    const rows = new RecentNewsRows();
    const first = rows.of([raw(2), raw(1)]);
    const again = rows.of([raw(2), raw(1)]);
    expect(again).not.toBe(first);
    expect(again[0]).toBe(first[0]);
    expect(again[1]).toBe(first[1]);
    expect(Object.isFrozen(first[0])).toBe(true);
    const [big] = rows.of([cut(5, '{"x', 10)]);
    expect(Object.isFrozen(big)).toBe(true);
    expect(Object.isFrozen(big.cut)).toBe(true);
  });

  it('makes a row anew when any value it shows differs from the one read last at its place', () => {
    const rows = new RecentNewsRows();
    const [first] = rows.of([raw(1)]);
    const changed: Array<[string, RecentRow, object]> = [
      ['id', { ...raw(1), id: '9' }, { id: '9' }],
      ['ts', { ...raw(1), ts: '1700000000009' }, { ts: 1_700_000_000_009 }],
      ['body', raw(1, '{"type":"u"}'), { body: '{"type":"u"}' }],
      ['cut', cut(1, '{"type":"t","n":1}', 50), { cut: { chars: 50, type: 't' } }],
    ];
    for (const [, row, expected] of changed) {
      rows.of([raw(1)]);
      const [made] = rows.of([row]);
      expect(made).not.toBe(first);
      expect(made).toMatchObject(expected);
    }
    const [a] = rows.of([cut(1, '{"x', 50)]);
    expect(rows.of([cut(1, '{"x', 60)])[0]).toEqual({ ...a, cut: { chars: 60, type: 't' } });
    expect(rows.of([{ ...cut(1, '{"x', 60), type: 'u' }])[0].cut).toEqual({ chars: 60, type: 'u' });
  });

  it('takes numbers and bigints from a driver that does not hand bigint columns over as text', () => {
    const rows = new RecentNewsRows();
    const [row] = rows.of([{ ...raw(1), id: 7n, ts: 1_700_000_000_007 }]);
    expect(row).toEqual({ id: '7', ts: 1_700_000_000_007, body: '{"type":"t","n":1}' });
    expect(rows.of([{ ...raw(1), id: 7n, ts: 1_700_000_000_007 }])[0]).toBe(row);
  });
});

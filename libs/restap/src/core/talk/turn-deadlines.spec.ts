import { TurnDeadlines } from './turn-deadlines';

describe('TurnDeadlines', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('hands over an item still waiting afterMs after it was added, and not before', () => {
    const due: string[] = [];
    const deadlines = new TurnDeadlines<string>(100, (item) => due.push(item));
    deadlines.add('a');
    jest.advanceTimersByTime(99);
    expect(due).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(due).toEqual(['a']);
  });

  it('never hands over an item removed before it is due', () => {
    const due: string[] = [];
    const deadlines = new TurnDeadlines<string>(100, (item) => due.push(item));
    const a = deadlines.add('a');
    jest.advanceTimersByTime(10);
    deadlines.add('b');
    deadlines.remove(a);
    jest.advanceTimersByTime(95);
    expect(due).toEqual([]);
    jest.advanceTimersByTime(5);
    expect(due).toEqual(['b']);
    jest.advanceTimersByTime(1000);
    expect(due).toEqual(['b']);
  });

  it('hands over each of several items at its own time, in the order they came, with one timer armed at a time', () => {
    const due: Array<[string, number]> = [];
    const deadlines = new TurnDeadlines<string>(100, (item) => due.push([item, Date.now()]));
    const start = Date.now();
    deadlines.add('a');
    jest.advanceTimersByTime(30);
    const b = deadlines.add('b');
    jest.advanceTimersByTime(30);
    deadlines.add('c');
    expect(jest.getTimerCount()).toBe(1);
    deadlines.remove(b);
    jest.advanceTimersByTime(200);
    expect(due).toEqual([
      ['a', start + 100],
      ['c', start + 160],
    ]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('keeps the items after one whose hand-over throws', () => {
    const due: string[] = [];
    const deadlines = new TurnDeadlines<string>(100, (item) => {
      if (item === 'a') throw new Error('boom');
      due.push(item);
    });
    deadlines.add('a');
    jest.advanceTimersByTime(10);
    deadlines.add('b');
    expect(() => jest.advanceTimersByTime(90)).toThrow('boom');
    jest.advanceTimersByTime(10);
    expect(due).toEqual(['b']);
  });

  it('removing twice, or after the hand-over, changes nothing', () => {
    const due: string[] = [];
    const deadlines = new TurnDeadlines<string>(100, (item) => due.push(item));
    const a = deadlines.add('a');
    jest.advanceTimersByTime(100);
    deadlines.remove(a);
    deadlines.remove(a);
    deadlines.add('b');
    jest.advanceTimersByTime(100);
    expect(due).toEqual(['a', 'b']);
  });
});

import { TooManyRequestsException } from '../../exceptions';
import { StreamSlots } from './stream-slots';

describe('StreamSlots (issue 6, item 3: open-stream caps per client and in total)', () => {
  it('refuses past the per-client cap with 429 and Retry-After, other clients still get slots', () => {
    const slots = new StreamSlots(10, 2);
    slots.acquire('a');
    slots.acquire('a');
    expect(() => slots.acquire('a')).toThrow(TooManyRequestsException);
    try {
      slots.acquire('a');
    } catch (error) {
      expect((error as TooManyRequestsException).headers).toEqual({ 'Retry-After': '1' });
    }
    expect(() => slots.acquire('b')).not.toThrow();
    expect(slots.open).toBe(3);
  });

  it('refuses past the total cap whoever asks, and a released slot (released twice: once counted) is free again', () => {
    const slots = new StreamSlots(2, 5);
    const release = slots.acquire('a');
    slots.acquire('b');
    expect(() => slots.acquire('c')).toThrow(/2 streams open, its limit/);
    release();
    release();
    expect(slots.open).toBe(1);
    expect(() => slots.acquire('c')).not.toThrow();
    expect(() => slots.acquire('d')).toThrow(TooManyRequestsException);
  });
});

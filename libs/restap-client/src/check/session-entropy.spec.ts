import { estimateEntropyBits, MIN_ESTIMATED_BITS } from './session-entropy';

describe('estimateEntropyBits (heuristic for "one that a server mints MUST [carry 122 bits]")', () => {
  it('accepts the spec\'s recommended encodings', () => {
    const uuids = ['f3bb16ab-295c-4f32-9856-4280fd541b93', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'];
    expect(estimateEntropyBits(uuids[0], uuids[1])).toBeGreaterThanOrEqual(MIN_ESTIMATED_BITS);
    expect(estimateEntropyBits('sess_9Yx2pK7m-Qd0Rb3nVt1aZw', 'sess_Lq8vT3bN0sPz5Xc2Wm7yHe')).toBeGreaterThanOrEqual(122);
  });

  it('discounts a shared readable prefix and flags short or sequential ids', () => {
    expect(estimateEntropyBits('sess_0000000000000001', 'sess_0000000000000002')).toBeLessThan(MIN_ESTIMATED_BITS);
    expect(estimateEntropyBits('Ab3dE6gH9jK2mN5p', 'Zy8xW7vU6tS5rQ4p')).toBeLessThan(MIN_ESTIMATED_BITS);
    expect(estimateEntropyBits('same', 'same')).toBe(0);
  });
});

import { endAtTokenExpiry, tokenDeadlineOf } from './token-expiry';
import type { ResolvedRestapOAuthOptions } from '../../../interfaces/restap-options.interface';

const oauth = { clockTolerance: 5 } as ResolvedRestapOAuthOptions;
const auth = { clientId: 'c', scopes: [], issuer: 'https://as.example' };

describe('issue 34 gap 1: long-lived streams end when their token stops being accepted', () => {
  afterEach(() => jest.useRealTimers());

  it('the deadline is the token\'s exp (the bearer check refuses it from then on); none without OAuth or without exp', () => {
    expect(tokenDeadlineOf({ ...auth, expiresAt: 1_800_000_000 }, oauth)).toBe(1_800_000_000_000);
    expect(tokenDeadlineOf({ ...auth, expiresAt: 1_800_000_000 }, undefined)).toBeUndefined();
    expect(tokenDeadlineOf(auth, oauth)).toBeUndefined();
    expect(tokenDeadlineOf(undefined, oauth)).toBeUndefined();
  });

  it('ends the stream at the deadline, not before; not at all once the stream closed on its own', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const end = jest.fn();
    endAtTokenExpiry(1_003_000, new AbortController().signal, end);
    jest.advanceTimersByTime(2_999);
    expect(end).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(end).toHaveBeenCalledTimes(1);

    const closed = new AbortController();
    const other = jest.fn();
    endAtTokenExpiry(1_010_000, closed.signal, other);
    closed.abort();
    jest.advanceTimersByTime(60_000);
    expect(other).not.toHaveBeenCalled();
  });

  it('a deadline past setTimeout\'s longest delay (about 24.8 days) is waited for in steps, not fired at once', () => {
    jest.useFakeTimers({ now: 0 });
    const end = jest.fn();
    const deadline = 30 * 86_400_000;
    endAtTokenExpiry(deadline, new AbortController().signal, end);
    jest.advanceTimersByTime(2_147_483_647);
    expect(end).not.toHaveBeenCalled();
    jest.advanceTimersByTime(deadline - 2_147_483_647);
    expect(end).toHaveBeenCalledTimes(1);
  });
});

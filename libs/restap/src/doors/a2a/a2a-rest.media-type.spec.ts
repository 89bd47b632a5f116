import { acceptsA2aJson } from './a2a-rest.media-type';

describe('acceptsA2aJson: who gets application/a2a+json on HTTP+JSON (A2A 1.0 §11.1 says application/json)', () => {
  it.each([
    ['application/a2a+json, application/json', true], // the SDK's own client
    ['Application/A2A+JSON;q=0.5', true],
    ['application/json', false],
    ['*/*', false],
    [undefined, false],
    ['application/a2a+json;q=0, application/json', false],
    ['application/a2a+json; q=0.0', false],
  ])('Accept %p → %p', (accept, expected) => {
    expect(acceptsA2aJson(accept)).toBe(expected);
  });
});

import { fitsCatalogPart } from './catalog.shape';

describe('fitsCatalogPart: conformance rules judge by the parts of the one catalog schema (issue 33)', () => {
  it('protocols: "Each entry is { "available": boolean, "endpoint"?: string }"', () => {
    expect(fitsCatalogPart('protocols.*', { available: true, endpoint: '/mcp' })).toBe(true);
    expect(fitsCatalogPart('protocols.*', { available: false })).toBe(true);
    for (const bad of [{ available: 'yes' }, { endpoint: '/mcp' }, { available: true, endpoint: null }, [], null, true]) {
      expect([bad, fitsCatalogPart('protocols.*', bad)]).toEqual([bad, false]);
    }
  });

  it('packages: "Name and type are required fields", plus any other metadata', () => {
    expect(fitsCatalogPart('packages[]', { name: 'p', type: 'npm-package', homepage: 'https://x.test' })).toBe(true);
    for (const bad of [{ name: 'p' }, { name: 'p', type: 1 }, 'p', null]) expect([bad, fitsCatalogPart('packages[]', bad)]).toEqual([bad, false]);
  });

  it('agent.name is a non-empty string; streaming.supported a boolean; streaming.transport "sse"', () => {
    expect([fitsCatalogPart('agent.name', 'A'), fitsCatalogPart('agent.name', ''), fitsCatalogPart('agent.name', 1)]).toEqual([true, false, false]);
    expect([fitsCatalogPart('streaming.supported', false), fitsCatalogPart('streaming.supported', 'true')]).toEqual([true, false]);
    expect([fitsCatalogPart('streaming.transport', 'sse'), fitsCatalogPart('streaming.transport', 'websocket')]).toEqual([true, false]);
  });
});

import { fillPath, pathParamNames } from './capability.path';

describe('fillPath', () => {
  it('substitutes and encodes {param} placeholders', () => {
    expect(fillPath('/jobs/{id}/files/{name}', { id: 7, name: 'a b/c' })).toBe('/jobs/7/files/a%20b%2Fc');
  });

  it('names every missing parameter', () => {
    expect(() => fillPath('/a/{x}/{y}', { x: 1 })).toThrow(expect.objectContaining({ code: 'invalid_input', details: ['y'] }));
  });

  it('lists placeholder names', () => {
    expect(pathParamNames('/a/{x}/b/{y}')).toEqual(['x', 'y']);
  });
});

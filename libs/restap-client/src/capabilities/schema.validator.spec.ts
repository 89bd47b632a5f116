import { formatIssues, SchemaValidator } from './schema.validator';

describe('SchemaValidator', () => {
  const schema = { type: 'object', properties: { when: { type: 'string', format: 'date-time' }, n: { type: 'integer' } }, required: ['n'], 'x-vendor': true };

  it('checks formats (ajv-formats) and ignores unknown keywords (strict: false)', () => {
    const validator = new SchemaValidator();
    expect(validator.validate('a', schema, { n: 1, when: '2025-01-01T00:00:00Z' })).toEqual([]);
    expect(formatIssues(validator.validate('a', schema, { when: 'yesterday' }))).toBe(
      "(root) must have required property 'n'; /when must match format \"date-time\"",
    );
  });

  it('compiles each schema once per key', () => {
    const validator = new SchemaValidator();
    validator.validate('k', { type: 'string' }, 'x');
    // Same key, different schema: the first compilation is reused (catalogs do not change).
    expect(validator.validate('k', { type: 'number' }, 'still a string')).toEqual([]);
  });

  it('reports a broken schema as invalid_schema', () => {
    expect(() => new SchemaValidator().validate('bad', { type: 'nonsense' }, 1)).toThrow(expect.objectContaining({ code: 'invalid_schema' }));
  });
});

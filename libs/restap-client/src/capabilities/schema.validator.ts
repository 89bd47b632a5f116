import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { RestapError } from '../errors/restap.error';
import type { JsonSchema } from '../interfaces/catalog.interface';

/** One failed JSON Schema rule, flattened from ajv for error details. */
export interface SchemaIssue {
  /** JSON pointer into the value (`''` for the root). */
  path: string;
  message: string;
}

/**
 * Compiles each catalog schema once and validates values against it. `strict: false` because
 * catalogs carry annotations (`description`, `example`, vendor keywords) ajv would otherwise reject.
 */
export class SchemaValidator {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor() {
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
  }

  /** Validates `value`; returns the issues (empty when valid). `key` names the compiled schema. */
  validate(key: string, schema: JsonSchema, value: unknown): SchemaIssue[] {
    const validate = this.compile(key, schema);
    return validate(value) ? [] : toIssues(validate.errors ?? []);
  }

  private compile(key: string, schema: JsonSchema): ValidateFunction {
    const cached = this.compiled.get(key);
    if (cached) return cached;
    try {
      const validate = this.ajv.compile(schema);
      this.compiled.set(key, validate);
      return validate;
    } catch (error) {
      throw new RestapError('invalid_schema', `The catalog's schema "${key}" is not valid JSON Schema: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}

function toIssues(errors: ErrorObject[]): SchemaIssue[] {
  return errors.map((e) => ({
    path: e.instancePath,
    message: e.keyword === 'additionalProperties'
      ? `must NOT have additional property "${String(e.params.additionalProperty)}"`
      : (e.message ?? e.keyword),
  }));
}

/** `"/text must be string; (root) must have required property 'x'"`: readable in one line. */
export function formatIssues(issues: SchemaIssue[]): string {
  return issues.map((i) => `${i.path || '(root)'} ${i.message}`).join('; ');
}

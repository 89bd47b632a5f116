/** A mistake in how the module is used; thrown at startup so it never reaches a request. */
export class RestapBootstrapError extends Error {
  override name = 'RestapBootstrapError';
}

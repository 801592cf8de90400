/** Errors of the engines that the CLI names to a person, in a module of their own: it loads without the drivers. */
export class PgvectorMissingError extends Error {
  override name = 'PgvectorMissingError';
}

/** Plain-JSON copies: what a JSON file or a checkpointer keeps of a value. */

/**
 * `x` through a JSON round trip: a deep copy holding only what JSON keeps (a non-finite number
 * becomes null, an undefined field is dropped).
 */
export function jsonCopy<T>(x: T): T {
  return JSON.parse(JSON.stringify(x)) as T;
}

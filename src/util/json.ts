/** Plain-JSON copies: what a JSON file or a checkpointer keeps of a value. */

/**
 * `x` through a JSON round trip: a deep copy holding only what JSON keeps (a non-finite number
 * becomes null, an undefined field is dropped).
 */
export function jsonCopy<T>(x: T): T {
  return JSON.parse(JSON.stringify(x)) as T;
}

/**
 * A deep copy of `x` (structuredClone: every number bit for bit, −0 included) with every object
 * and array in it frozen: a value kept as it was given, which neither its giver nor a reader can
 * change afterwards.
 */
export function frozenCopy<T>(x: T): T {
  return deepFreeze(structuredClone(x));
}

function deepFreeze<T>(x: T): T {
  if (x !== null && typeof x === 'object' && !Object.isFrozen(x)) {
    for (const v of Object.values(x)) deepFreeze(v);
    Object.freeze(x);
  }
  return x;
}

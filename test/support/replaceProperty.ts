// Swaps one property of an object for a test and puts it back. The vscode suites use it on the `vscode` API object,
// which the extension host shares between the extension and the tests loaded from its folder: that is how a test
// answers a prompt, counts what a picker was given, or steps in while the extension awaits the editor.

/** Sets `target[key]` to `value` (as an own, writable property); the returned function restores what was there. */
export function replaceProperty<T extends object, K extends keyof T>(target: T, key: K, value: T[K]): () => void {
  const own = Object.getOwnPropertyDescriptor(target, key);
  Object.defineProperty(target, key, { value, configurable: true, writable: true, enumerable: own?.enumerable ?? true });
  return () => {
    if (own) Object.defineProperty(target, key, own);
    else delete target[key];
  };
}

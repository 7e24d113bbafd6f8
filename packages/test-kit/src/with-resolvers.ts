/**
 * Installs `Promise.withResolvers` where it is missing (Node 20): the reference moq clients
 * (@moq/lite, @moq/qmux) call it. Returns a function that removes it again, when it installed it.
 */
export function installWithResolvers(): () => void {
  if (Reflect.get(Promise, "withResolvers") !== undefined) return () => undefined;
  Reflect.set(Promise, "withResolvers", <T>() => {
    let resolve: (v: T) => void = () => undefined;
    let reject: (e: unknown) => void = () => undefined;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  });
  return () => {
    Reflect.deleteProperty(Promise, "withResolvers");
  };
}

/** Run async tasks one after another (a tiny in-process mutex). */
export function createSerialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>) => {
    const next = tail.catch(() => undefined).then(task);
    tail = next;
    return next;
  };
}

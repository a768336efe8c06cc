// A promise with its resolve and reject at hand, for one made in one place and settled in another (Node 20 has no Promise.withResolvers).
export class Deferred<T = void> {
  readonly promise: Promise<T>
  resolve: (value: T | PromiseLike<T>) => void = () => undefined
  reject: (reason?: unknown) => void = () => undefined

  constructor() {
    // the executor runs at once: resolve and reject are the promise's own before the constructor returns
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve
      this.reject = reject
    })
  }
}

/**
 * A dialog's OK action whose failures the user has already been told about: a failed call shows the request
 * helper's toast (or the re-login dialog), an invalid form shows its own messages. The failure then ends here
 * instead of escaping as an uncaught error of the page; a plain dialog stays open, a confirmation closes.
 */
export function dialogAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>) {
  return async (...args: A): Promise<void> => {
    try {
      await action(...args);
    } catch {
      // already shown to the user (toast or form messages)
    }
  };
}

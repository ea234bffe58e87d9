/**
 * Python an intruder's spider starts with: `attempt(fn)` runs one try and says 'ok' or the name of the error it met,
 * `read(p)` reads a file or lists a folder. Isolation tests build their probes on it, so every probe reports in the
 * same words.
 */
export const PY_ATTEMPT = `def attempt(fn):
    try:
        fn()
        return 'ok'
    except Exception as e:
        return type(e).__name__
def read(p):
    if os.path.isdir(p):
        os.listdir(p)
    else:
        open(p, 'rb').read()`;

"""Crawldeck spider SDK (standard library only).

Items are appended as JSON lines to the file named by the CRAWLDECK_ITEMS environment variable, which the
Crawldeck node sets for every task. Outside a task (no CRAWLDECK_ITEMS) items are printed to stdout.
"""
import json
import os
import sys
import threading

__all__ = ["save_item", "save_items", "task_id", "spider_id"]

_lock = threading.Lock()


def task_id():
    return os.environ.get("CRAWLDECK_TASK_ID", "")


def spider_id():
    return os.environ.get("CRAWLDECK_SPIDER_ID", "")


def _default(o):
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    if isinstance(o, bytes):
        return o.decode("utf-8", "replace")
    return str(o)


def _line(item):
    if not isinstance(item, dict):
        item = dict(item)
    return json.dumps(item, ensure_ascii=False, default=_default) + "\n"


def save_items(items):
    """Saves several items (dicts) with one write."""
    data = "".join(_line(i) for i in items)
    if not data:
        return
    path = os.environ.get("CRAWLDECK_ITEMS")
    if not path:
        sys.stdout.write(data)
        sys.stdout.flush()
        return
    with _lock:
        # One write call per batch in append mode: lines of concurrent writers never interleave mid-line.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            buf = data.encode("utf-8")
            while buf:
                n = os.write(fd, buf)
                buf = buf[n:]
        finally:
            os.close(fd)


def save_item(item):
    """Saves one item (a dict)."""
    save_items([item])

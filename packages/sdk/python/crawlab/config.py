"""The task's identity as Crawlab's SDK reads it."""
import os


def get_task_id():
    return os.environ.get("CRAWLAB_TASK_ID") or os.environ.get("CRAWLDECK_TASK_ID", "")


def get_collection():
    return os.environ.get("CRAWLAB_COLLECTION") or os.environ.get("CRAWLDECK_COLLECTION", "")

"""Crawlab's result record: a dict (Crawldeck stores it as it is; the task is known without a task_id field)."""


class Result(dict):
    def set_task_id(self, task_id):
        self["_tid"] = task_id

    def get_task_id(self):
        return self.get("_tid")

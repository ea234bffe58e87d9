"""Crawldeck's Scrapy introspection helper.

Run as ``python scrapy_helper.py COMMAND`` with the working directory at a Scrapy project root (the folder that
holds scrapy.cfg). Input (if any) is JSON on stdin; output is one JSON object on stdout: ``{"data": ...}`` or
``{"error": "..."}``. Edits are made to the files in the working directory; the master copies changed files back
into the spider's store. Source rewriting only touches the assignments / classes that change, so comments and
the rest of each file survive.
"""
import ast
import configparser
import inspect
import json
import os
import pprint
import re
import subprocess
import sys
import traceback

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class HelperError(Exception):
    pass


# ---------------------------------------------------------------- project layout

def settings_module():
    cfg = configparser.ConfigParser()
    if not cfg.read("scrapy.cfg"):
        raise HelperError("scrapy.cfg not found: this is not a Scrapy project")
    if not cfg.has_option("settings", "default"):
        raise HelperError("scrapy.cfg has no [settings] default entry")
    return cfg.get("settings", "default")


def module_file(module):
    base = os.path.join(*module.split("."))
    for cand in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(cand):
            return cand
    raise HelperError("module %s not found (expected %s.py)" % (module, base))


def package_of(module):
    return module.rsplit(".", 1)[0] if "." in module else ""


def sibling_file(name):
    """items.py / pipelines.py next to the settings module."""
    pkg = package_of(settings_module())
    path = os.path.join(*(pkg.split(".") + [name])) if pkg else name
    return path, (pkg + "." if pkg else "") + name[:-3]


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def parse(path, text):
    try:
        return ast.parse(text, filename=path)
    except SyntaxError as e:
        raise HelperError("%s line %s: %s" % (path, e.lineno, e.msg))


def line_offsets(text):
    offs, pos = [0], 0
    for line in text.splitlines(keepends=True):
        pos += len(line)
        offs.append(pos)
    return offs


def span(text, node, whole_lines=False):
    offs = line_offsets(text)
    if whole_lines:
        start = offs[node.lineno - 1]
        end = offs[node.end_lineno] if node.end_lineno < len(offs) else len(text)
        return start, end
    # col offsets are in UTF-8 bytes
    def to_idx(lineno, col):
        line_start = offs[lineno - 1]
        line = text[line_start:offs[lineno] if lineno < len(offs) else len(text)]
        return line_start + len(line.encode("utf-8")[:col].decode("utf-8", "ignore"))
    return to_idx(node.lineno, node.col_offset), to_idx(node.end_lineno, node.end_col_offset)


# ---------------------------------------------------------------- values

def type_of(v):
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, (list, tuple, set, frozenset)):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "string"


def to_json(v):
    if isinstance(v, (tuple, set, frozenset)):
        return [to_json(x) for x in v]
    if isinstance(v, list):
        return [to_json(x) for x in v]
    if isinstance(v, dict):
        return {str(k): to_json(x) for k, x in v.items()}
    if isinstance(v, (bytes, bytearray)):
        return v.decode("utf-8", "replace")
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return repr(v)


def py_literal(v, indent=0):
    """JSON value → Python source, dicts one entry per line like Scrapy's own template."""
    if isinstance(v, dict):
        if not v:
            return "{}"
        pad = " " * (indent + 4)
        body = "".join("%s%s: %s,\n" % (pad, py_literal(str(k)), py_literal(x, indent + 4)) for k, x in v.items())
        return "{\n%s%s}" % (body, " " * indent)
    if isinstance(v, list):
        one = "[" + ", ".join(py_literal(x, indent) for x in v) + "]"
        if len(one) <= 80:
            return one
        pad = " " * (indent + 4)
        return "[\n" + "".join("%s%s,\n" % (pad, py_literal(x, indent + 4)) for x in v) + " " * indent + "]"
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return repr(int(v))
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    return repr(v)


def setting_assignments(tree):
    """Top-level ``NAME = value`` assignments with upper-case names, last one wins."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            name = node.target.id
        else:
            continue
        if name.isupper():
            found[name] = node
    return found


def known_type(key, value):
    known = KNOWN_TYPES.get(key)
    return known or type_of(value)


KNOWN_TYPES = {}


def get_settings():
    path = module_file(settings_module())
    text = read(path)
    out = []
    for key, node in setting_assignments(parse(path, text)).items():
        try:
            value = ast.literal_eval(node.value)
            out.append({"key": key, "value": to_json(value), "type": known_type(key, value)})
        except Exception:
            src = ast.get_source_segment(text, node.value) or ""
            out.append({"key": key, "value": src, "type": "string", "expression": True})
    return out


def set_settings(new_list, remove_missing=True):
    path = module_file(settings_module())
    text = read(path)
    nodes = setting_assignments(parse(path, text))
    wanted = {}
    for s in new_list:
        key = s["key"]
        if not IDENT.match(key):
            raise HelperError("invalid setting name %r" % key)
        wanted[key] = s
    edits = []  # (start, end, replacement)
    for key, node in nodes.items():
        if key not in wanted:
            if remove_missing:
                start, end = span(text, node, whole_lines=True)
                edits.append((start, end, ""))
            continue
        s = wanted[key]
        if s.get("expression"):
            current_src = ast.get_source_segment(text, node.value)
            if current_src == s["value"]:
                continue
            new_src = s["value"] if isinstance(s["value"], str) else py_literal(s["value"])
            try:
                ast.parse(new_src, mode="eval")
            except SyntaxError:
                raise HelperError("setting %s: %r is not a Python expression" % (key, new_src))
        else:
            try:
                current = to_json(ast.literal_eval(node.value))
            except Exception:
                current = object()
            if current == s["value"] and type(current) is type(s["value"]):
                continue
            new_src = py_literal(s["value"])
        start, end = span(text, node.value)
        edits.append((start, end, new_src))
    added = [s for k, s in wanted.items() if k not in nodes]
    for start, end, rep in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[:start] + rep + text[end:]
    if added:
        if text and not text.endswith("\n"):
            text += "\n"
        for s in added:
            val = s["value"] if s.get("expression") else py_literal(s["value"])
            text += "%s = %s\n" % (s["key"], val)
    parse(path, text)
    write(path, text)
    return get_settings()


# ---------------------------------------------------------------- items

def is_field_call(value):
    if not isinstance(value, ast.Call):
        return False
    f = value.func
    return (isinstance(f, ast.Name) and f.id == "Field") or (isinstance(f, ast.Attribute) and f.attr == "Field")


def item_classes(tree):
    out = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        base_names = []
        for b in node.bases:
            if isinstance(b, ast.Name):
                base_names.append(b.id)
            elif isinstance(b, ast.Attribute):
                base_names.append(b.attr)
        fields = []
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) and is_field_call(stmt.value):
                fields.append((stmt.targets[0].id, stmt))
        if fields or any(n.endswith("Item") for n in base_names):
            out.append((node, fields))
    return out


def items_path():
    path, _ = sibling_file("items.py")
    return path


def get_items():
    path = items_path()
    if not os.path.isfile(path):
        return []
    tree = parse(path, read(path))
    return [{"name": c.name, "fields": [f for f, _ in fields]} for c, fields in item_classes(tree)]


def set_items(new_items):
    path = items_path()
    text = read(path) if os.path.isfile(path) else "import scrapy\n"
    tree = parse(path, text)
    existing = {c.name: (c, fields) for c, fields in item_classes(tree)}
    wanted = {}
    for it in new_items:
        if not IDENT.match(it["name"]):
            raise HelperError("invalid item name %r" % it["name"])
        for f in it["fields"]:
            if not IDENT.match(f):
                raise HelperError("invalid field name %r in %s" % (f, it["name"]))
        if len(set(it["fields"])) != len(it["fields"]):
            raise HelperError("item %s has duplicate fields" % it["name"])
        wanted[it["name"]] = it["fields"]
    uses_module = "import scrapy" in text
    field_expr = "scrapy.Field()" if uses_module else "Field()"
    edits = []
    for name, (cls, fields) in existing.items():
        if name not in wanted:
            start, end = span(text, cls, whole_lines=True)
            if cls.decorator_list:
                start, _ = span(text, cls.decorator_list[0], whole_lines=True)
            edits.append((start, end, ""))
            continue
        want = wanted[name]
        have = [f for f, _ in fields]
        removed = [stmt for f, stmt in fields if f not in want]
        new_fields = [f for f in want if f not in have]
        for stmt in removed:
            start, end = span(text, stmt, whole_lines=True)
            keep_body = len(removed) == len(cls.body) and not new_fields and stmt is removed[0]
            edits.append((start, end, " " * stmt.col_offset + "pass\n" if keep_body else ""))
        if new_fields:
            last = fields[-1][1] if fields else cls.body[-1]
            indent = " " * (last.col_offset if fields else cls.body[0].col_offset)
            _, end = span(text, last, whole_lines=True)
            ins = "".join("%s%s = %s\n" % (indent, f, field_expr) for f in new_fields)
            if end > 0 and not text[:end].endswith("\n"):
                ins = "\n" + ins
            edits.append((end, end, ins))
    for start, end, rep in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        text = text[:start] + rep + text[end:]
    base = "scrapy.Item" if uses_module else "Item"
    for name, want in wanted.items():
        if name in existing:
            continue
        body = "".join("    %s = %s\n" % (f, field_expr) for f in want) or "    pass\n"
        text = text.rstrip("\n") + "\n\n\nclass %s(%s):\n%s" % (name, base, body)
    text = text.rstrip("\n") + "\n"
    parse(path, text)
    write(path, text)
    return get_items()


# ---------------------------------------------------------------- pipelines

def get_pipelines():
    settings = {s["key"]: s for s in get_settings()}
    enabled = settings.get("ITEM_PIPELINES", {}).get("value") or {}
    if not isinstance(enabled, dict):
        enabled = {}
    path, module = sibling_file("pipelines.py")
    defined = []
    if os.path.isfile(path):
        tree = parse(path, read(path))
        defined = [module + "." + n.name for n in tree.body if isinstance(n, ast.ClassDef)]
    out = []
    for name in defined:
        out.append({"name": name, "priority": enabled.get(name), "enabled": name in enabled, "defined": True})
    for name, prio in enabled.items():
        if name not in defined:
            out.append({"name": name, "priority": prio, "enabled": True, "defined": False})
    return out


def set_pipelines(new_list):
    path, module = sibling_file("pipelines.py")
    text = read(path) if os.path.isfile(path) else ""
    classes = {n.name for n in parse(path, text).body if isinstance(n, ast.ClassDef)} if text else set()
    added = False
    for p in new_list:
        name = p["name"]
        if name.startswith(module + ".") and name[len(module) + 1:] not in classes:
            cls = name[len(module) + 1:]
            if not IDENT.match(cls):
                raise HelperError("invalid pipeline class %r" % cls)
            text = text.rstrip("\n") + ("\n\n\n" if text.strip() else "") + (
                "class %s:\n    def process_item(self, item, spider):\n        return item\n" % cls)
            classes.add(cls)
            added = True
    if added:
        write(path, text)
    pipelines = {}
    for i, p in enumerate(new_list):
        if p.get("enabled", True) is False:
            continue
        prio = p.get("priority")
        pipelines[p["name"]] = int(prio) if prio is not None else 300 + i
    current = [s for s in get_settings()]
    others = [s for s in current if s["key"] != "ITEM_PIPELINES"]
    if pipelines or any(s["key"] == "ITEM_PIPELINES" for s in current):
        others.append({"key": "ITEM_PIPELINES", "value": pipelines, "type": "object"})
    set_settings(others)
    return get_pipelines()


# ---------------------------------------------------------------- spiders (need Scrapy)

def project_settings():
    sys.path.insert(0, os.getcwd())
    os.environ.pop("SCRAPY_SETTINGS_MODULE", None)
    from scrapy.utils.project import get_project_settings
    return get_project_settings()


def spider_loader():
    from scrapy.utils.misc import load_object
    settings = project_settings()
    cls = load_object(settings["SPIDER_LOADER_CLASS"])
    return cls.from_settings(settings.frozencopy())


def list_spiders():
    # Spider names sort descending, as every name list of the console does.
    return sorted(spider_loader().list(), reverse=True)


def spider_filepath(name):
    loader = spider_loader()
    try:
        cls = loader.load(name)
    except KeyError:
        raise HelperError("spider %s not found" % name)
    path = os.path.relpath(inspect.getsourcefile(cls), os.getcwd())
    if path.startswith(".."):
        raise HelperError("spider %s is defined outside the project" % name)
    return path.replace(os.sep, "/")


def gen_spider(form):
    name, domain, template = form["name"], form["domain"], form.get("template") or "basic"
    if not IDENT.match(name):
        raise HelperError("invalid spider name %r" % name)
    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9.:/_-]*$", domain):
        raise HelperError("invalid domain %r" % domain)
    if name in list_spiders():
        raise HelperError("spider %s already exists" % name)
    proc = subprocess.run([sys.executable, "-m", "scrapy", "genspider", "-t", template, name, domain],
                          capture_output=True, text=True, timeout=60)
    out = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0 or "Created spider" not in out:
        raise HelperError(out.splitlines()[-1] if out else "scrapy genspider failed")
    return {"name": name, "filepath": spider_filepath(name)}


COMMANDS = {
    "settings": lambda inp: get_settings(),
    "set-settings": lambda inp: set_settings(inp),
    "items": lambda inp: get_items(),
    "set-items": lambda inp: set_items(inp),
    "pipelines": lambda inp: get_pipelines(),
    "set-pipelines": lambda inp: set_pipelines(inp),
    "list": lambda inp: list_spiders(),
    "filepath": lambda inp: spider_filepath(inp["spider_name"]),
    "genspider": lambda inp: gen_spider(inp),
}


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd not in COMMANDS:
        print(json.dumps({"error": "unknown command %r" % cmd}))
        return
    raw = sys.stdin.read()
    inp = json.loads(raw) if raw.strip() else None
    if isinstance(inp, dict) and "known_types" in inp:
        KNOWN_TYPES.update(inp.pop("known_types"))
        inp = inp.get("input")
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # user code printing at import time must not corrupt our JSON
    try:
        result = {"data": COMMANDS[cmd](inp)}
    except HelperError as e:
        result = {"error": str(e)}
    except Exception as e:  # user project code failed to import, etc.
        tb = traceback.format_exc()
        sys.stderr.write(tb)
        result = {"error": "%s: %s" % (type(e).__name__, e)}
    sys.stdout = real_stdout
    real_stdout.write(json.dumps(result, default=repr))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Lists the source files in src/ over the line limit and the functions over the function limit.

Usage: code_size.py SRC_DIR [--max-file-lines 500] [--max-function-lines 80]
Prints one line per file or function over its limit and exits 1 when there is any, else 0.
A function is a brace block whose head ends in a parameter list (free functions, member functions
defined in a class, constructors); lambdas count toward the function around them. Its length runs
from the first line of its head to the matching '}'. Braces inside strings, characters and comments
are skipped.
"""
import argparse
import os
import re
import sys



def strip_code(text):
    """The text with string/char literals and comments blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            if m:
                end = text.find(")" + m.group(1) + '"', i)
                end = n if end < 0 else end + len(m.group(1)) + 2
                out.append("".join(ch if ch == "\n" else " " for ch in text[i:end]))
                i = end
            else:
                out.append(c)
                i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof", "noexcept"}
SIGNATURE_END = re.compile(r"\)\s*(?:const|noexcept|override|final|mutable|&|&&|->\s*[\w:<>,\s*&]+|\s)*$")


def function_name(head):
    """The name before the parameter list of `head` (text up to a '{'), or None if it is no function."""
    if not SIGNATURE_END.search(head):
        return None
    # Find the '(' matching the last ')' of the parameter list.
    close = head.rstrip().rfind(")")
    depth = 0
    for pos in range(close, -1, -1):
        if head[pos] == ")":
            depth += 1
        elif head[pos] == "(":
            depth -= 1
            if depth == 0:
                break
    else:
        return None
    words = re.findall(r"[\w:~<>]+\s*$", head[:pos])
    if not words or head[:pos].rstrip().endswith("]"):
        return None  # a lambda: part of the function around it
    word = words[0].strip()
    if word in CONTROL or re.search(r"=\s*$", head[:pos].rstrip()[: -len(word)] if word else ""):
        return None
    return word


def long_functions(path, limit):
    """(line, length, name) of each function longer than `limit` lines, outermost functions only."""
    with open(path, encoding="utf-8") as f:
        text = strip_code(f.read())
    found = []
    stack = []  # per open brace: (is_function, start_line, name)
    head_start = 0
    inside_function = 0
    for pos, c in enumerate(text):
        if c == "{":
            head = text[head_start:pos]
            name = None if inside_function else function_name(head)
            if name is not None:
                first = head_start + len(head) - len(head.lstrip())
                stack.append((True, text.count("\n", 0, first) + 1, name))
                inside_function += 1
            else:
                stack.append((False, 0, None))
            head_start = pos + 1
        elif c == "}":
            if stack:
                is_function, start_line, name = stack.pop()
                if is_function:
                    inside_function -= 1
                    length = text.count("\n", 0, pos) + 1 - start_line + 1
                    if length > limit:
                        found.append((start_line, length, name))
            head_start = pos + 1
        elif c == ";":
            head_start = pos + 1
        elif c == "#" and (pos == 0 or text[pos - 1] == "\n"):
            head_start = text.find("\n", pos) + 1 or len(text)
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("src")
    parser.add_argument("--max-file-lines", type=int, default=500)
    parser.add_argument("--max-function-lines", type=int, default=80)
    args = parser.parse_args()
    problems = []
    for root, _, files in os.walk(args.src):
        for name in sorted(files):
            if not name.endswith((".cpp", ".hpp", ".cpp.in")):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as f:
                count = sum(1 for _ in f)
            rel = os.path.relpath(path, args.src)
            if count > args.max_file_lines:
                problems.append(f"{rel}: {count} lines (limit {args.max_file_lines})")
            for line, length, signature in long_functions(path, args.max_function_lines):
                problems.append(f"{rel}:{line}: function of {length} lines (limit {args.max_function_lines}): {signature}")
    for problem in sorted(problems):
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

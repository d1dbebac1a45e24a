"""Runs a command on a pseudo-terminal and types answers at its hidden prompts.

Usage: tty_answers.py PROMPT ANSWER [PROMPT ANSWER ...] -- COMMAND [ARGS...]
Each ANSWER is typed once PROMPT has been printed and the terminal's echo is off (the program
reads it hidden): typed earlier, a TCSAFLUSH would discard it. Prints what the program wrote,
and exits with its status. Every wait is bounded (10 s).
"""
import os
import pty
import sys
import termios
import time

split = sys.argv.index("--")
pairs = sys.argv[1:split]
command = sys.argv[split + 1:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(command[0], command)

seen = b""


def read_some(timeout):
    global seen
    import select
    ready, _, _ = select.select([fd], [], [], timeout)
    if ready:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return False
        if not chunk:
            return False
        seen += chunk
    return True


for prompt, answer in zip(pairs[0::2], pairs[1::2]):
    deadline = time.monotonic() + 10
    start = len(seen)
    while time.monotonic() < deadline:
        hidden = not (termios.tcgetattr(fd)[3] & termios.ECHO)
        if prompt.encode() in seen[start:] and hidden:
            break
        if not read_some(0.05):
            break
    os.write(fd, answer.encode() + b"\n")

deadline = time.monotonic() + 10
while time.monotonic() < deadline and read_some(0.1):
    pass
_, status = os.waitpid(pid, 0)
sys.stdout.write(seen.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status))

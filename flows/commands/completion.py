"""``synthdocqa completion bash|zsh``: a shell completion script made from the CLI's own parser.

The script is static: commands, subcommands, each command's options and the choices of options that have
them (``--profile``, ``--runner``, ``--backend``, ...) are written into it, so a Tab costs no Python start;
arguments that are not options complete as file names. zsh reads the bash script through ``bashcompinit``.
Regenerate it after an upgrade (``eval "$(synthdocqa completion bash)"`` in the shell's start file does so).
"""

from __future__ import annotations

import argparse
import shlex

SHELLS = ("bash", "zsh")


def _options(parser: argparse.ArgumentParser) -> tuple[list[str], dict[str, list[str]]]:
    """The option strings of ``parser`` and, for options with choices, those choices."""
    names: list[str] = []
    choices: dict[str, list[str]] = {}
    for action in parser._actions:  # noqa: SLF001 - argparse has no public walk of its actions
        for opt in action.option_strings:
            names.append(opt)
            if action.choices is not None and not isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
                choices[opt] = [str(c) for c in action.choices]
    return names, choices


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # noqa: SLF001
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            return dict(action.choices)
    return {}


def _words(items: list[str]) -> str:
    return shlex.quote(" ".join(items))


def bash_script(parser: argparse.ArgumentParser, prog: str = "synthdocqa") -> str:
    """The bash completion function of ``parser`` (a command, or a group and its subcommands, per word)."""
    top_opts, _ = _options(parser)
    commands = _subparsers(parser)
    cases, choice_cases = [], {}
    for name, sub in sorted(commands.items()):
        subs = _subparsers(sub)
        opts, choices = _options(sub)
        for opt, values in choices.items():
            choice_cases.setdefault(opt, set()).update(values)
        if subs:
            inner = []
            for sname, ssub in sorted(subs.items()):
                sopts, schoices = _options(ssub)
                for opt, values in schoices.items():
                    choice_cases.setdefault(opt, set()).update(values)
                inner.append(f"        {shlex.quote(sname)}) opts={_words(sopts)} ;;")
            cases.append(
                f"    {shlex.quote(name)})\n"
                f"      if [[ $COMP_CWORD -eq 2 ]]; then\n"
                f"        COMPREPLY=($(compgen -W {_words(sorted(subs))} -- \"$cur\")); return 0\n"
                f"      fi\n"
                f"      case \"${{COMP_WORDS[2]}}\" in\n" + "\n".join(inner) + "\n      esac ;;")
        else:
            cases.append(f"    {shlex.quote(name)}) opts={_words(opts)} ;;")
    choice_lines = [f"    {shlex.quote(opt)}) COMPREPLY=($(compgen -W {_words(sorted(values))} -- \"$cur\")); return 0 ;;"
                    for opt, values in sorted(choice_cases.items())]
    fn = f"_{prog.replace('-', '_')}_complete"
    return "\n".join([
        f"# {prog} completion for bash (zsh: autoload -U +X bashcompinit && bashcompinit first).",
        f"# Made by `{prog} completion bash` from the CLI's parser; make it again after an upgrade.",
        f"{fn}() {{",
        "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" opts=\"\"",
        "  if [[ $COMP_CWORD -eq 1 ]]; then",
        f"    COMPREPLY=($(compgen -W {_words(sorted(commands) + top_opts)} -- \"$cur\")); return 0",
        "  fi",
        "  case \"$prev\" in",
        *choice_lines,
        "  esac",
        "  case \"${COMP_WORDS[1]}\" in",
        *cases,
        "  esac",
        "  if [[ \"$cur\" == -* ]]; then",
        "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))",
        "  else",
        "    COMPREPLY=($(compgen -f -- \"$cur\"))",
        "  fi",
        "  return 0",
        "}",
        f"complete -o filenames -F {fn} {prog}",
        "",
    ])


def cmd_completion(args: argparse.Namespace) -> int:
    from synthdocqa.flows.cli import build_parser

    script = bash_script(build_parser())
    if args.shell == "zsh":
        script = "autoload -U +X bashcompinit && bashcompinit\n" + script
    print(script, end="")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("completion", help="print a shell completion script (bash or zsh)",
                              description="A static completion script from this CLI's parser: commands, options "
                                          "and their choices; file names elsewhere. In ~/.bashrc: "
                                          'eval "$(synthdocqa completion bash)"')
    p.add_argument("shell", choices=SHELLS, help="the shell: bash, or zsh (through bashcompinit)")
    p.set_defaults(func=cmd_completion)

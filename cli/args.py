"""What every command shares: one-line usage errors, whole-number flags, the scenario flags."""
from __future__ import annotations

import argparse
import math
import sys

from cli import COMMANDS, UsageError, prog_name  # noqa: F401 (re-exported for the commands)
from model.catalog.active import default_catalog, default_efficiency
from model.physics.scenario import Scenario


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (main.py puts the program and command in front) and a
    "did you mean …?" for a mistyped option."""

    def error(self, message: str):  # one line, no usage dump
        raise UsageError(f"{message} (see {self.prog} --help)")

    def parse_args(self, args=None, namespace=None):
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            from model.readouts.command_line import unknown_option_text
            target = self._command_parser(ns)
            word = next((x for x in extras if x.startswith("-")), extras[0])
            raise UsageError(f"{unknown_option_text(word, target.long_options())} (see {target.prog} --help)")
        return ns

    def _command_parser(self, ns: argparse.Namespace) -> "Parser":
        """The (sub)parser of the command ``ns`` holds (main.py hardware export: export's)."""
        parser = self
        while True:
            sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
            name = getattr(ns, sub.dest, None) if sub is not None else None
            if name not in getattr(sub, "choices", {}):
                return parser
            parser = sub.choices[name]

    def long_options(self) -> list[str]:
        return [o for a in self._actions for o in a.option_strings if o.startswith("--")]


def table_width(args: argparse.Namespace) -> int | None:
    """The width tables fit: the terminal's, at most 100 (100 when not a terminal); None with --wide."""
    if getattr(args, "wide", False):
        return None
    import shutil
    return max(40, min(100, shutil.get_terminal_size((100, 24)).columns))


def add_wide_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--wide", action="store_true", help="tables as wide as their rows (default: fit the terminal, "
                                                       "at most 100 columns)")


def positive_int(name: str):
    def parse(text: str) -> int:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got '{text}'") from None
        if not math.isfinite(value) or value != int(value):
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got '{text}'")
        if abs(value) > 2 ** 53:
            raise argparse.ArgumentTypeError(f"{name} is far too large, got '{text}'")
        return int(value)
    return parse


def add_scenario_flags(p: argparse.ArgumentParser, defaults: bool = True) -> None:
    d = Scenario()
    g = p.add_argument_group("scenario")
    g.add_argument("--gpu", default=d.gpu if defaults else None, help=f"GPU id or alias (default {d.gpu})")
    g.add_argument("--model", default=d.model if defaults else None, help=f"model id or alias (default {d.model})")
    g.add_argument("--precision", default=d.precision if defaults else None, help=precision_help())
    g.add_argument("--kv-precision", default=None, help=" ".join(k.id for k in default_catalog().kv_precisions
                                                                 if not k.hidden) + " (default: follows --precision)")
    g.add_argument("--batch", type=positive_int("batch"), default=d.batch if defaults else None)
    g.add_argument("--gpus", type=positive_int("GPU count"), default=d.gpus if defaults else None)
    g.add_argument("--interconnect", default=d.interconnect if defaults else None, help="nvlink | pcie | network")
    g.add_argument("--input-len", type=positive_int("input length"), default=d.input_len if defaults else None)
    g.add_argument("--output-len", type=positive_int("output length"), default=d.output_len if defaults else None)
    g.add_argument("--phase", default=d.phase if defaults else None, help="decode | prefill")
    g.add_argument("--engine", default=d.engine if defaults else None, help=engine_help())


def precision_help() -> str:
    """The --precision help: every precision in the catalogue (yours included)."""
    from model.readouts.command_line import precision_help as words
    return words(default_catalog(), prog_name())


def engine_help() -> str:
    """The --engine help, from the engine table: every id, and the older versions (engine@version)."""
    table = default_efficiency()
    ids = [e for e in table.ids if e not in ("auto", "ideal")]
    text = "auto | ideal | " + " ".join(ids)
    if table.version_ids:
        text += "; older versions: " + " ".join(table.version_ids)
    return text + " (default auto: the engine most used on the GPU)"


def scenario_from_args(args, base=None):
    s = base or Scenario()
    changes = {k: getattr(args, k) for k in ("gpu", "model", "precision", "kv_precision", "batch", "gpus",
                                             "interconnect", "input_len", "output_len", "phase", "engine")
               if getattr(args, k, None) is not None}
    return s.with_(**changes)


def warn_context(scenario, command: str) -> None:
    """One line on stderr when prompt + output is longer than the model's context length."""
    from model.catalog.active import default_catalog
    from model.files.context import context_tokens
    from model.readouts.command_line import context_warning
    cat = default_catalog()
    llm = cat.model(scenario.model)
    line = context_warning(llm.name, context_tokens(llm.id, cat), scenario.input_len, scenario.output_len)
    if line:
        print(f"{prog_name()} {command}: {line}", file=sys.stderr)

"""model.values.frozen behaves as @dataclass(frozen=True) does: init, fields, replace, frozen
attributes, == and hash over the compared fields, and the same repr text."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from model import Scenario, estimate
from model.catalog.active import default_catalog
from model.values import frozen


def _pair():
    def body():
        return {"__annotations__": {"name": "str", "size": "int", "tags": "tuple", "note": "str"},
                "size": 3, "tags": (), "note": field(default="", compare=False)}
    a = frozen(type("Thing", (), body()))
    b = dataclass(frozen=True)(type("Thing", (), body()))
    return a, b


def test_a_frozen_value_matches_a_frozen_dataclass():
    A, B = _pair()
    for args in [("x",), ("x", 4, ("a", "b")), ("y", 4, (), "a note")]:
        a, b = A(*args), B(*args)
        hash(a)                                                    # (kept by the instance)
        assert repr(a) == repr(b) and dataclasses.asdict(a) == dataclasses.asdict(b)
        assert dataclasses.astuple(a) == dataclasses.astuple(b)
        assert [f.name for f in dataclasses.fields(a)] == [f.name for f in dataclasses.fields(b)]
    assert A("x", 4, (), "one") == A("x", 4, (), "two")          # the note does not compare
    assert hash(A("x", 4, (), "one")) == hash(A("x", 4, (), "two"))
    assert A("x") != A("y") and A("x") != B("x")                  # another class never equals
    assert A("x").__eq__(B("x")) is NotImplemented
    assert dataclasses.replace(A("x"), size=9) == A("x", 9)
    with pytest.raises(dataclasses.FrozenInstanceError):
        A("x").size = 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        del A("x").name
    with pytest.raises(TypeError):
        A()                                                        # the generated __init__
    assert len({A("x"), A("x"), A("y")}) == 2


def test_the_shared_init_takes_arguments_as_the_generated_one_does():
    A, B = _pair()
    for args, kwargs in [(("x",), {"note": "n"}), ((), {"name": "x", "tags": ("t",)}), (("x", 2), {"note": "n"})]:
        assert repr(A(*args, **kwargs)) == repr(B(*args, **kwargs))
    for args, kwargs, needle in [((), {}, "missing required argument: 'name'"),
                                 (("x", 1, (), "", 5), {}, "takes 4 positional arguments but 5 were given"),
                                 (("x",), {"name": "y"}, "multiple values for argument 'name'"),
                                 (("x",), {"colour": "red"}, "unexpected keyword argument 'colour'")]:
        with pytest.raises(TypeError, match=needle):
            A(*args, **kwargs)
        with pytest.raises(TypeError):
            B(*args, **kwargs)                                     # the dataclass refuses it too
    Bag = frozen(type("Bag", (), {"__annotations__": {"items": "list"}, "items": field(default_factory=list)}))
    one, two = Bag(), Bag()
    assert one.items == [] and one.items is not two.items         # a fresh default each time
    assert Bag.__doc__ == "Bag(items)" and "Thing" in A.__doc__
    with pytest.raises(TypeError, match="__post_init__"):
        frozen(type("Checked", (), {"__annotations__": {"n": "int"}, "__post_init__": lambda self: None}))


def test_an_identity_value_compares_and_hashes_by_identity():
    Box = frozen(eq=False)(type("Box", (), {"__annotations__": {"items": "list"}}))
    a, b = Box([1]), Box([1])
    assert a == a and a != b and len({a, b}) == 2 and repr(a) == "Box(items=[1])"
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.items = []


def test_a_kept_hash_stays_in_its_process():
    import copy
    import pickle
    s = Scenario()
    hash(s)
    for twin in (pickle.loads(pickle.dumps(s)), copy.copy(s), copy.deepcopy(s)):
        assert twin == s and "_value_hash" not in vars(twin)


def test_a_value_holding_itself_has_a_finite_repr():
    Box = frozen(type("Box", (), {"__annotations__": {"items": "list"}}))
    b = Box([])
    b.items.append(b)
    assert repr(b) == "Box(items=[...])"


def test_the_models_values_compare_hash_and_print_by_their_fields():
    s = Scenario()
    assert s == Scenario() and hash(s) == hash(Scenario()) and s != s.with_(batch=2)
    assert repr(s).startswith("Scenario(gpu=") and "batch=1" in repr(s)
    e1, e2 = estimate(s), estimate(s)
    assert e1 == e2 and hash(e1) == hash(e2)
    cat = default_catalog()
    h = cat.gpu(s.gpu)
    assert h == dataclasses.replace(h, sources=(("x", "another source"),))   # sources do not compare


def test_filled_makes_the_value_init_makes():
    """values.filled: every field by keyword, without __init__'s checks; the same value."""
    from model.values import filled
    a = Scenario(gpu="h200", batch=8)
    b = filled(Scenario, **{f.name: getattr(a, f.name) for f in dataclasses.fields(Scenario)})
    assert b == a and hash(b) == hash(a) and repr(b) == repr(a) and type(b) is Scenario
    with pytest.raises(dataclasses.FrozenInstanceError):
        b.batch = 2

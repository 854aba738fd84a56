"""dab.dataset: exact-labelled data sets of positions, as `dab dataset`
writes them, loaded as numpy arrays (docs/python.md, "Data sets").

    d = dab.dataset.load("ds3x3")                 # every shard checked against the manifest
    d = dab.dataset.load("ds3x3", split="train")  # the training games only
    d["obs"], d["value"], d["move_values"], d["optimal"], d["wdl"], d["keep"]
    d.manifest["board"], len(d)
    t = dab.dataset.TorchDataset("ds3x3", split="test")   # imports torch (only here)

A data set is a folder: manifest.json (JSON: the board, the sampler, the
seed, the options, the dab version and commit, the counts, the label CPU
time, and the shard list with each shard's SHA-256), positions.npz (the
sampled positions, before labelling) and the shards train-NNNNN.npz,
test-NNNNN.npz: numpy .npz files of the arrays of SCHEMA, one row per
position.  Every file is written whole (a temporary file, fsync, rename,
fsync of the folder), so a shard either exists complete or not at all.
"""
import hashlib
import io
import json
import os
import zipfile

import numpy as np

from .errors import DabCorruptError, DabInputError, DabIOError

__all__ = ["load", "TorchDataset", "Data", "schema", "verify", "read_manifest", "NONE", "MANIFEST",
           "POSITIONS"]

FORMAT = "dab-dataset"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
POSITIONS = "positions.npz"
NONE = -128          # no value: a drawn line, or a label a node limit left open
SPLITS = ("train", "test")
OBS_LAYOUTS = ("openspiel", "planes")


def nlines(rows, cols):
    return rows * (cols + 1) + (rows + 1) * cols


def obs_shape(rows, cols, obs):
    """The observation's shape per position, as Game.observation_tensor_shape."""
    if obs == "openspiel":
        return (3, (rows + 1) * (cols + 1), 3)
    if obs == "planes":
        return (4, rows + 1, cols + 1)
    raise DabInputError(1, "obs %r: expected 'openspiel' or 'planes'" % (obs,))


def schema(rows, cols, obs="openspiel"):
    """[(name, dtype, shape per position)] of a shard's arrays, in file order.

    The state: lines, by1 (lines player 1 drew), box1 (boxes player 1
    owns) as bit masks, score (boxes of players 0 and 1), to_move,
    score_diff (the mover's boxes minus the other's), step (lines drawn),
    game (the index of the self-play game it came from), key (the
    Strings-and-Coins graph key, symmetry/sckey.h: equal for positions
    whose graphs are isomorphic).
    The labels (Wilson's convention: net boxes the player to move gains
    from here on): value, lower, upper (equal to value when exact), exact
    (every label of the row proved); move_values, move_lower, move_upper
    per line (NONE = -128 on drawn lines, and on moves a node limit left
    open); optimal (1 on the optimal moves; under a node limit, on the
    moves not proved worse); wdl (1/0/-1, the best result the mover can
    reach given score_diff; NONE when the bounds leave it open) and keep
    (1 on the moves that keep it; under a node limit, on those proved to).
    obs: the observation (0/1, uint8 on disk; load() makes it float32 by
    default), OpenSpiel's [3, (R+1)(C+1), 3] or planes [4, R+1, C+1] seen
    by the player to move; legal: 1 on the undrawn lines.
    """
    L = nlines(rows, cols)
    u8, i8, i16, i64, u64 = np.uint8, np.int8, np.int16, np.int64, np.uint64
    return [("lines", u64, ()), ("by1", u64, ()), ("box1", u64, ()), ("score", i16, (2,)),
            ("to_move", i8, ()), ("score_diff", i16, ()), ("step", i16, ()), ("game", i64, ()),
            ("key", u64, ()), ("obs", u8, obs_shape(rows, cols, obs)), ("legal", u8, (L,)),
            ("value", i8, ()), ("lower", i8, ()), ("upper", i8, ()), ("exact", np.bool_, ()),
            ("move_values", i8, (L,)), ("move_lower", i8, (L,)), ("move_upper", i8, (L,)),
            ("optimal", u8, (L,)), ("wdl", i8, ()), ("keep", u8, (L,))]


# ---- Files ------------------------------------------------------------------

def sha256(data):
    return hashlib.sha256(data).hexdigest()


def _fsync_dir(folder):
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def tmp_name(path):
    """The temporary file beside path that durable_write renames; a name
    starting with '.' and holding '.tmp-' (a rerun removes such leftovers)."""
    d, b = os.path.split(os.path.abspath(path))
    return os.path.join(d, ".%s.tmp-%d" % (b, os.getpid()))


def durable_write(path, data):
    """Writes data (bytes) to path whole, as game/durable.h does in C: a
    temporary file beside it, fsync, rename over path, fsync of the folder.
    A crash leaves the old file or the new one, never a part."""
    tmp = tmp_name(path)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(os.path.dirname(os.path.abspath(path)))


def npz_bytes(arrays):
    """An .npz (a zip of .npy members, deflated) of arrays, a list of
    (name, array), as bytes.  numpy.savez stamps every member with the
    time; this writes a fixed stamp, so equal arrays give equal bytes and
    a resumed run the checksums of an uninterrupted one."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, a in arrays:
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(a), allow_pickle=False)
            zi = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o644 << 16
            zf.writestr(zi, member.getvalue())
    return buf.getvalue()


def npz_read(data, what):
    """{name: array} of .npz bytes; DabCorruptError naming what when they
    are not one (a zip member's CRC is checked as it is read)."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except Exception as e:   # zipfile.BadZipFile, ValueError, EOFError...: all mean damage
        raise DabCorruptError(5, "%s: not a readable .npz (%s)" % (what, e)) from None


# ---- Reading ----------------------------------------------------------------

def read_manifest(path):
    """The manifest of the data set in folder path, as a dict.  RAISES:
    DabIOError when there is none; DabCorruptError when it is not a dab
    data set's manifest."""
    f = os.path.join(path, MANIFEST)
    try:
        with open(f, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        raise DabIOError(4, "%s: no %s: not a dab data set (made by `dab dataset`)" % (path, MANIFEST)) from None
    except OSError as e:
        raise DabIOError(4, "%s: %s" % (f, e.strerror)) from None
    try:
        m = json.loads(raw)
    except ValueError as e:
        raise DabCorruptError(5, "%s: not JSON (%s)" % (f, e)) from None
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        raise DabCorruptError(5, "%s: not a dab data set manifest" % f)
    if m.get("format_version") != FORMAT_VERSION:
        raise DabCorruptError(5, "%s: format version %r, this dab reads %d" % (f, m.get("format_version"),
                                                                              FORMAT_VERSION))
    return m


def read_shard(path, shard):
    """The arrays of one finished shard (a manifest entry), checked against
    its SHA-256.  RAISES: DabIOError when the file cannot be read;
    DabCorruptError when it fails its checksum."""
    f = os.path.join(path, shard["file"])
    try:
        with open(f, "rb") as fh:
            data = fh.read()
    except OSError as e:
        raise DabIOError(4, "%s: shard %s: %s" % (path, shard["file"], e.strerror)) from None
    if sha256(data) != shard.get("sha256"):
        raise DabCorruptError(5, "%s: shard %s fails its SHA-256 (damaged or changed); running the "
                                 "`dab dataset` command that made it again redoes it"
                              % (path, shard["file"]))
    return npz_read(data, "%s: shard %s" % (path, shard["file"]))


def verify(path):
    """Checks every finished shard of the data set against the manifest.
    RETURN: the names of the shards that are missing or fail their SHA-256
    (empty when all are sound); the manifest's own errors raise."""
    m = read_manifest(path)
    bad = []
    for s in m["shards"]:
        if not s.get("sha256"):
            continue
        try:
            with open(os.path.join(path, s["file"]), "rb") as fh:
                if sha256(fh.read()) != s["sha256"]:
                    bad.append(s["file"])
        except OSError:
            bad.append(s["file"])
    return bad


class Data:
    """A loaded data set: .arrays ({name: numpy array}, one row per
    position; schema() lists them, plus "test": True on the rows of test
    games), .manifest (the manifest as a dict) and .split (None, "train"
    or "test").  d["value"] and d.value both give an array; len(d) is the
    number of positions."""

    def __init__(self, arrays, manifest, split):
        self.arrays, self.manifest, self.split = arrays, manifest, split

    def __getitem__(self, name):
        return self.arrays[name]

    def __getattr__(self, name):
        try:
            return self.__dict__["arrays"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __len__(self):
        return int(self.arrays["value"].shape[0])

    def keys(self):
        return self.arrays.keys()

    def __repr__(self):
        return "<dab.dataset.Data %s, %d positions%s>" % (self.manifest.get("board"), len(self),
                                                          ", split %s" % self.split if self.split else "")


def load(path, split=None, obs_dtype=np.float32, partial=False):
    """The data set in folder path as a Data: every array of the shards of
    split (None: both; "train"; "test") concatenated in the manifest's
    order, each shard checked against its SHA-256 first.  obs_dtype: the
    observation's dtype (float32 by default, as observation_tensor; None
    keeps the uint8 of the file).  partial=True loads the finished shards
    of a data set whose run was interrupted.
    RAISES: DabInputError (a ValueError) for a bad split, or an unfinished
    data set without partial=True; DabIOError when a file cannot be read;
    DabCorruptError when a shard fails its checksum (the command that made
    it, run again, redoes it)."""
    if split not in (None,) + SPLITS:
        raise DabInputError(1, "split %r: expected None, 'train' or 'test'" % (split,))
    m = read_manifest(path)
    shards = [s for s in m["shards"] if split is None or s["split"] == split]
    done = [s for s in shards if s.get("sha256")]
    if len(done) < len(shards) and not partial:
        raise DabInputError(1, "%s: unfinished data set: %d of %d shards%s are written; run the `dab dataset` "
                               "command that made it again to finish it (or load(..., partial=True))"
                            % (path, len(done), len(shards), " of %s" % split if split else ""))
    rows, cols = m["rows"], m["cols"]
    sch = schema(rows, cols, m["obs"])
    parts = {name: [] for name, _, _ in sch}
    test = []
    for s in done:
        a = read_shard(path, s)
        n = s["positions"]
        for name, dt, shape in sch:
            x = a.get(name)
            if x is None or x.dtype != dt or x.shape != (n,) + tuple(shape):
                raise DabCorruptError(5, "%s: shard %s: array %s is %s, the format says %s %s"
                                      % (path, s["file"], name,
                                         "missing" if x is None else "%s %s" % (x.dtype, x.shape),
                                         np.dtype(dt), (n,) + tuple(shape)))
            parts[name].append(x)
        test.append(np.full(n, s["split"] == "test"))
    arrays = {}
    for name, dt, shape in sch:
        arrays[name] = np.concatenate(parts[name]) if parts[name] else np.zeros((0,) + tuple(shape), dtype=dt)
    arrays["test"] = np.concatenate(test) if test else np.zeros(0, dtype=bool)
    if obs_dtype is not None:
        arrays["obs"] = arrays["obs"].astype(obs_dtype)
    return Data(arrays, m, split)


# ---- PyTorch ------------------------------------------------------------------

DEFAULT_FIELDS = ("obs", "legal", "value", "move_values", "optimal", "wdl", "keep", "exact")
_torch_class = None


def TorchDataset(path, split=None, fields=DEFAULT_FIELDS, obs_dtype=np.float32, partial=False):
    """A torch.utils.data.Dataset over load(path, split, ...): item i is a
    dict {field: tensor} of fields (default DEFAULT_FIELDS), which
    DataLoader's default collate stacks into batches.  obs is float32;
    the labels keep their dtypes (int8 values: NONE = -128 on drawn lines,
    uint8 masks, bool exact); uint64 bit masks (lines, key...) come as
    int64 with the same bits, torch having no uint64.  torch is imported here, not by `import dab`
    or dab.dataset.  .data is the Data, .manifest its manifest."""
    global _torch_class
    import torch
    if _torch_class is None:
        class _DabTorchDataset(torch.utils.data.Dataset):
            def __init__(self, data, fields):
                unknown = [f for f in fields if f not in data.arrays]
                if unknown:
                    raise DabInputError(1, "fields %s: not in the data set (it has %s)"
                                        % (", ".join(unknown), ", ".join(sorted(data.arrays))))
                self.data, self.manifest, self.fields = data, data.manifest, tuple(fields)
                # torch has no uint64: bit masks (lines, by1, box1, key) as int64, same bits
                self._t = {f: torch.from_numpy(np.ascontiguousarray(
                    data.arrays[f].view(np.int64) if data.arrays[f].dtype == np.uint64 else data.arrays[f]))
                    for f in self.fields}

            def __len__(self):
                return len(self.data)

            def __getitem__(self, i):
                return {f: t[i] for f, t in self._t.items()}

        _torch_class = _DabTorchDataset
    return _torch_class(load(path, split=split, obs_dtype=obs_dtype, partial=partial), fields)

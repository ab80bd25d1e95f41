#!/usr/bin/env python3
"""Writes the hand-made BR streams in this folder (run once; the files are
committed). Each bad_* file breaks one rule of docs/formats/br.md; its
.expect holds profkit's exact message (see tests/cli/bad_files.sh)."""
import struct, os

def mp(mod, name): return b'\x01' + struct.pack('>HH', mod, len(name)) + name
def line(mod, ln, clause=0): return b'\x03' + struct.pack('>HIB', mod, ln, clause)
def back(mod, ln, clause=0): return b'\x05' + struct.pack('>HIB', mod, ln, clause)
def tm(ns): return b'\x04' + struct.pack('>Q', ns)
def name(s): return b'\x07' + bytes([len(s)]) + s
GOSUB, MAIN, END = b'\x08', b'\x09', b'\x06'

here = os.path.dirname(os.path.abspath(__file__))
def w(fn, data):
    with open(os.path.join(here, fn), 'wb') as f: f.write(data)

# Sampled: three groups; module 2 never mapped; a clause; main and gosub frames.
w('ok_sampled.brprof',
  mp(1, b'main.br') + mp(3, b'lib/calc.br') +
  line(3, 120, 2) + name(b'CALC') + back(1, 40) + GOSUB + back(1, 10) + MAIN + END +
  line(3, 130) + name(b'CALC') + back(1, 10) + MAIN + END +
  line(2, 7) + back(1, 10) + MAIN + END)
# Timed: time records, module 3 redefined mid-stream, a group without time.
w('ok_timed.brprof',
  mp(1, b'main.br') + mp(3, b'old.br') +
  line(3, 5) + name(b'F') + tm(1000) + back(1, 10) + MAIN + tm(500) + END +
  mp(3, b'new.br') +
  line(3, 5) + name(b'F') + tm(2000) + back(1, 10) + MAIN + END +
  line(1, 10) + MAIN + END)
# GOSUB routines named by their callers' lines; a Windows module path.
w('ok_gosub.brprof',
  mp(1, b'C:\\ACME\\INVOICE.BR') +
  line(1, 1210) + GOSUB + back(1, 300) + MAIN + END +
  line(1, 1220) + GOSUB + back(1, 300) + MAIN + END +
  line(1, 1510) + GOSUB + back(1, 400) + MAIN + END +
  line(1, 2010) + GOSUB + back(1, 1220) + GOSUB + back(1, 300) + MAIN + END)
w('bad_unknown_type.brprof', mp(1, b'a.br') + b'\x02' + line(1, 1) + END)
w('bad_line_in_group.brprof', mp(1, b'a.br') + line(1, 1) + line(1, 2) + END)
w('bad_time_outside.brprof', mp(1, b'a.br') + tm(5) + line(1, 1) + END)
w('bad_backtrace_outside.brprof', line(1, 1) + END + back(1, 2) + END)
w('bad_name_after_time.brprof', line(1, 1) + tm(5) + name(b'X') + END)
w('bad_two_tags.brprof', line(1, 1) + name(b'X') + GOSUB + END)
w('bad_end_outside.brprof', line(1, 1) + END + END)
w('bad_map_past_end.brprof', line(1, 1) + END + b'\x01' + struct.pack('>HH', 1, 40) + b'short')
w('bad_cut_record.brprof', line(1, 1) + END + b'\x01\x00')
w('bad_cut_group.brprof', mp(1, b'a.br') + line(1, 1) + name(b'KEPT') + END + line(1, 2) + name(b'LOST'))
w('bad_cut_inside_record.brprof', line(1, 1) + name(b'KEPT') + END + line(1, 2) + b'\x05\x00\x01')

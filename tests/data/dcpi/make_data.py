#!/usr/bin/env python3
"""Writes the hand-made DCPI profiles in this folder (run once; the files are
committed). Each bad_* file breaks one rule of docs/formats/dcpi.md; its
.expect holds profkit's exact message (see tests/cli/bad_files.sh)."""
import struct, os

here = os.path.dirname(os.path.abspath(__file__))
REQ = ['image 0123abcd', 'epoch 9805191724', 'platform walnut', 'event cycles',
       'period 63488', 'tsize 4096', 'cpuspeed 500']

def profile(lines, chunks, footer=None, samples='samples', pad=True):
    """lines: header lines; chunks: [(offset, [counts])]; footer: (addrs, total) or computed."""
    head = ''.join(l + '\n' for l in lines)
    if pad:
        samples += ' ' * ((4 - (len(head) + len(samples) + 1) % 4) % 4)
    body = b''
    for off, counts in chunks:
        body += struct.pack('<II', off, len(counts)) + struct.pack('<%dI' % len(counts), *counts)
    if footer is None:
        allc = [c for _, cs in chunks for c in cs]
        footer = (sum(1 for c in allc if c), sum(allc))
    return (head + samples + '\n').encode() + body + struct.pack('<II', *footer)

def w(fn, data):
    with open(os.path.join(here, fn), 'wb') as f: f.write(data)

CH = [(0, [5, 1, 7]), (40, [2]), (100, [9, 3])]
# Canonical (what profkit writes): read -> write gives the same bytes.
w('ok_canonical.dcpi', profile(['version 0.07'] + REQ + ['tstart 0x120000000', 'cpuamask 1',
                                'path /usr/bin/walnut', 'label kept verbatim'], CH))
w('ok_pdb_epoch14.dcpi', profile(['version pdb-0.07', 'image 19970328081403c0c18b',
                                  'epoch 19980519172400', 'platform walnut',
                                  'event imiss 4096', 'period 4096', 'tsize 8192',
                                  'cpuspeed 500', 'tstart 120000000'], CH))
# No version, no tstart (addresses from 0), tabs and unknown lines, 12-digit
# epoch, zero counts inside chunks (valid, not canonical).
w('ok_unknown_lines.dcpi', profile(['image\t0123abcd', 'x-note  two  spaces', 'epoch 199805191724',
                                    'platform walnut alpha', 'event cycles', 'period 63488',
                                    'tsize 4096', 'odd', '', 'cpuspeed 500'],
                                   [(8, [0, 4, 0]), (20, [1])], samples='samples \t', pad=False))
w('ok_no_chunks.dcpi', profile(REQ, []))
w('bad_no_samples_line.dcpi', ('\n'.join(REQ) + '\nsample\n').encode() + struct.pack('<II', 0, 0))
w('bad_required_twice.dcpi', profile(REQ + ['event imiss'], CH))
w('bad_required_missing.dcpi', profile([l for l in REQ if not l.startswith('tsize')], CH))
w('bad_chunks_out_of_order.dcpi', profile(REQ, [(100, [1]), (0, [2])]))
w('bad_chunks_overlap.dcpi', profile(REQ, [(0, [1, 2, 3]), (8, [4])]))
w('bad_footer_total.dcpi', profile(REQ, CH, footer=(6, 28)))
w('bad_footer_addresses.dcpi', profile(REQ, CH, footer=(5, 27)))
w('bad_version1.dcpi', profile(['version pdb-1.01'] + REQ, CH))
w('bad_version_form.dcpi', profile(['version 0.x7'] + REQ, CH))
w('bad_epoch11.dcpi', profile([l if not l.startswith('epoch') else 'epoch 98051917241' for l in REQ], CH))
w('bad_image_not_hex.dcpi', profile(['image 12zz'] + REQ[1:], CH))
w('bad_tstart_twice.dcpi', profile(REQ + ['tstart 0x1000', 'tstart 0x2000'], CH))
w('bad_chunk_past_footer.dcpi', profile(REQ, [(0, [1, 2])])[:-12] + struct.pack('<II', 2, 3))
w('bad_chunk_header_short.dcpi', profile(REQ, [(0, [1])])[:-8] + b'\x00\x00\x00\x00' + struct.pack('<II', 1, 1))
w('bad_no_footer.dcpi', profile(REQ, [])[:-4])
w('bad_address_wraps.dcpi', profile([l for l in REQ] + ['tstart ffffffffffffffff'], [(0, [1])], pad=False,
                                     samples='samples '))
# The first line is an unknown line (valid by the specification): detected
# by the header's grammar, not by its first word.
w('ok_flavor_first.dcpi', profile(['flavor cycles-only', 'x-comment recorded by hand'] + REQ, CH))
# A file cut 6 bytes short (inside the last chunk's counts): the last 8
# bytes are counts, no footer; the chunks before the cut are kept.
w('bad_cut.dcpi', profile(['version 0.07'] + REQ + ['tstart 0x120000000', 'path /usr/bin/walnut'], CH)[:-6])

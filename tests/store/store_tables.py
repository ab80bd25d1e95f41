#!/usr/bin/env python3
"""Prints what a SQLite store holds, for comparing two stores: the row
count of every table, and the rows of the shared tables (ids are content
hashes, so two stores of the same profiles hold the same shared rows).

store_tables.py DB"""
import sqlite3
import sys

OWN = ["profiles", "labels", "meta", "profile_values", "profile_threads", "samples", "removed"]
SHARED = ["strings", "functions", "mappings", "frames", "stacks", "labelsets"]
db = sqlite3.connect(sys.argv[1])
for t in OWN + SHARED:
    print(t, db.execute("SELECT count(*) FROM " + t).fetchone()[0])
for t in SHARED:
    for row in db.execute("SELECT * FROM %s ORDER BY 1, 2" % t):
        print(t, *row)

#!/usr/bin/env python3
"""Prints what a SQLite store holds, for comparing two stores: the row
count of every table, and the content ids (h) of the shared tables' rows
(a row's id is a small number of its store, given in the order rows were
added; its content id is a hash of its content, the same in every store,
so two stores of the same profiles hold the same content ids).

store_tables.py DB"""
import sqlite3
import sys

OWN = ["profiles", "labels", "meta", "profile_values", "profile_threads", "samples", "removed"]
SHARED = ["strings", "functions", "mappings", "frames", "stacks", "labelsets", "idents"]
db = sqlite3.connect(sys.argv[1])
for t in OWN + SHARED:
    print(t, db.execute("SELECT count(*) FROM " + t).fetchone()[0])
for t in SHARED:
    for row in db.execute("SELECT h FROM %s ORDER BY 1" % t):
        print(t, *row)

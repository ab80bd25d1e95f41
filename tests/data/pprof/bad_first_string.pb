
2x2samples2count2cpu2nanoseconds2main2worker2inl2outer2a.c2/bin/app2thread2pid2	a comment2leaf
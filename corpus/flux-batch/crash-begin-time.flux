#!/bin/bash
# fuzz crasher: a begin-time past year 9999 (OverflowError in the Slurm writer)
#flux: --job-name=late
#flux: --dependency=begin-time:9999999999999999999999999999999999999999
run

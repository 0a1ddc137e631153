package sql

package sql_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// tpchSetup is a small data set of TPC-H's shape: regions, nations,
// suppliers, customers, orders and line items, with keys and dates
// spread as dbgen spreads them (independently of each other).
var tpchSetup = []string{
	"CREATE TABLE region (r_regionkey int PRIMARY KEY, r_name text NOT NULL)",
	"CREATE TABLE nation (n_nationkey int PRIMARY KEY, n_name text NOT NULL, n_regionkey int NOT NULL)",
	"CREATE TABLE supplier (s_suppkey int PRIMARY KEY, s_name text, s_nationkey int NOT NULL)",
	"CREATE TABLE customer (c_custkey int PRIMARY KEY, c_name text, c_nationkey int NOT NULL, c_mktsegment text NOT NULL)",
	"CREATE TABLE orders (o_orderkey int PRIMARY KEY, o_custkey int NOT NULL, o_orderdate date NOT NULL, o_shippriority int NOT NULL)",
	`CREATE TABLE lineitem (l_orderkey int NOT NULL, l_linenumber int NOT NULL, l_suppkey int NOT NULL, l_extendedprice numeric NOT NULL,
		l_discount numeric NOT NULL, l_shipdate date NOT NULL, l_returnflag text NOT NULL, PRIMARY KEY (l_orderkey, l_linenumber))`,
	"INSERT INTO region SELECT g, (ARRAY['AFRICA','AMERICA','ASIA','EUROPE','MIDDLE EAST'])[g + 1] FROM generate_series(0, 4) g",
	"INSERT INTO nation SELECT g, 'NATION' || g, g % 5 FROM generate_series(0, 24) g",
	// h(x, m) = x * m mod 1000003, a hash that leaves the columns
	// independent of each other.
	"INSERT INTO supplier SELECT g, 'Supplier' || g, g::int8 * 7919 % 1000003 % 25 FROM generate_series(1, 100) g",
	`INSERT INTO customer SELECT g, 'Customer' || g, g::int8 * 104729 % 1000003 % 25,
		(ARRAY['AUTOMOBILE','BUILDING','FURNITURE','HOUSEHOLD','MACHINERY'])[g::int8 * 15485863 % 1000003 % 5 + 1] FROM generate_series(1, 1500) g`,
	`INSERT INTO orders SELECT g, g::int8 * 32452843 % 1000003 % 1500 + 1, date '1992-01-01' + (g::int8 * 49979687 % 1000003 % 2400)::int, 0
		FROM generate_series(1, 15000) g`,
	`INSERT INTO lineitem SELECT o, l, (o * 4 + l)::int8 * 67867967 % 1000003 % 100 + 1, 900 + (o * l * 101) % 100000 / 100.0, ((o + l) % 11) / 100.0,
		date '1992-01-02' + ((o * 4 + l)::int8 * 86028121 % 1000003 % 2500)::int, (ARRAY['A','N','R'])[(o * 4 + l)::int8 * 179424673 % 1000003 % 3 + 1]
		FROM generate_series(1, 15000) o, generate_series(1, 4) l`,
	"ANALYZE",
}

// TestEstimatesFollowActuals runs TPC-H-shaped queries (q3, q5 and q10:
// three to six tables with filters) under EXPLAIN ANALYZE and checks that
// at every node the estimated rows are within 10× of the actual rows.
// Nodes under a Limit are left out: they stop when it has its rows, as in
// PostgreSQL, so their actual counts are not their outputs.
func TestEstimatesFollowActuals(t *testing.T) {
	db := openDB(t, tpchSetup...)
	ctx := context.Background()
	queries := map[string]string{
		"q3": `SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
			FROM customer, orders, lineitem
			WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
				AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15'
			GROUP BY l_orderkey, o_orderdate, o_shippriority ORDER BY revenue DESC, o_orderdate`,
		"q5": `SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue
			FROM customer, orders, lineitem, supplier, nation, region
			WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
				AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
				AND r_name = 'ASIA' AND o_orderdate >= date '1994-01-01' AND o_orderdate < date '1995-01-01'
			GROUP BY n_name ORDER BY revenue DESC`,
		"q10": `SELECT c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) AS revenue, n_name
			FROM customer, orders, lineitem, nation
			WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND o_orderdate >= date '1993-10-01'
				AND o_orderdate < date '1994-01-01' AND l_returnflag = 'R' AND c_nationkey = n_nationkey
			GROUP BY c_custkey, c_name, n_name ORDER BY revenue DESC`,
	}
	for name, q := range queries {
		var doc string
		if err := db.SQL().QueryRowContext(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+q).Scan(&doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plans []struct{ Plan planNode }
		if err := json.Unmarshal([]byte(doc), &plans); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, doc)
		}
		var lines []string
		bad := false
		var walk func(n planNode, depth int, underLimit bool)
		walk = func(n planNode, depth int, underLimit bool) {
			est, act := max(1, n.PlanRows), max(1, n.ActualRows)
			ratio := max(est/act, act/est)
			mark := ""
			if !underLimit && n.ActualLoops > 0 && ratio > 10 {
				mark, bad = "  <-- off by more than 10x", true
			}
			lines = append(lines, fmt.Sprintf("%s%s %s estimated %.0f, actual %.0f%s", strings.Repeat("  ", depth), n.NodeType, n.RelationName, n.PlanRows, n.ActualRows, mark))
			for _, k := range n.Plans {
				walk(k, depth+1, underLimit || n.NodeType == "Limit")
			}
		}
		walk(plans[0].Plan, 0, false)
		if bad {
			t.Errorf("%s: estimates off:\n%s", name, strings.Join(lines, "\n"))
		} else {
			t.Logf("%s:\n%s", name, strings.Join(lines, "\n"))
		}
	}
}

// planNode is a node of EXPLAIN (FORMAT JSON).
type planNode struct {
	NodeType     string     `json:"Node Type"`
	RelationName string     `json:"Relation Name"`
	PlanRows     float64    `json:"Plan Rows"`
	ActualRows   float64    `json:"Actual Rows"`
	ActualLoops  float64    `json:"Actual Loops"`
	Plans        []planNode `json:"Plans"`
}

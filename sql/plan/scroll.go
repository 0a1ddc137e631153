package plan

// Scrollable says whether a cursor declared with neither SCROLL nor NO
// SCROLL may move backward over p, as PostgreSQL decides it: when the top
// of its plan can scan backward (ExecSupportsBackwardScan) and it locks no
// rows. A sort, a scan of a table, a function or a VALUES list can; an
// aggregate, a join, DISTINCT, a set operation other than UNION ALL and a
// SELECT without FROM cannot. epochdb's plans are not PostgreSQL's node
// for node, so this follows the shape PostgreSQL's planner gives each
// query, not epochdb's operators. A WHERE clause with a subquery counts
// as the semi-join PostgreSQL usually makes of it.
func Scrollable(p QueryPlan) bool {
	if sp, ok := p.(*SelectPlan); ok && sp.Locking != nil {
		return false
	}
	return backward(p)
}

func backward(s Source) bool {
	switch s := s.(type) {
	case *SelectPlan:
		if len(s.order) > 0 && !s.distinct && s.distinctOn == nil {
			return true // a Sort on top, whatever is below it
		}
		if s.agg != nil || s.windows != nil || s.srfs != nil || s.distinct || s.distinctOn != nil || len(s.subs) > 0 {
			return false
		}
		return backward(s.src)
	case *setOpQuery:
		return len(s.order) > 0 || backward(s.in)
	case *setOpPlan:
		return s.kind == "UNION" && s.all && backward(s.left) && backward(s.right)
	case *filtered:
		return backward(s.in)
	case *narrowed:
		return backward(s.in)
	case *derived:
		return backward(s.plan)
	case *TableScan, *seqSource, *TableFunc, *rowsFrom, *valuesSource, *cteScan:
		return true
	}
	return false
}

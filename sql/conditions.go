package sql

import "strings"

// PL/pgSQL's condition names (PostgreSQL's errcodes.txt, plpgsql's
// plerrcodes.h), which EXCEPTION WHEN and RAISE name errors by. A class's
// name (the code ending in 000) catches every code of the class.
var conditionCodes = map[string]string{
	"successful_completion": "00000", "warning": "01000", "no_data": "02000",
	"sql_statement_not_yet_complete": "03000", "connection_exception": "08000",
	"feature_not_supported": "0A000", "invalid_transaction_initiation": "0B000",
	"cardinality_violation": "21000", "data_exception": "22000",
	"string_data_right_truncation": "22001", "null_value_not_allowed": "22004",
	"numeric_value_out_of_range": "22003", "invalid_datetime_format": "22007",
	"datetime_field_overflow": "22008", "division_by_zero": "22012", "invalid_parameter_value": "22023",
	"invalid_text_representation": "22P02", "invalid_binary_representation": "22P03",
	"character_not_in_repertoire": "22021", "invalid_regular_expression": "2201B",
	"invalid_escape_sequence": "22025", "array_subscript_error": "2202E", "untranslatable_character": "22P05",
	"integrity_constraint_violation": "23000", "restrict_violation": "23001", "not_null_violation": "23502",
	"foreign_key_violation": "23503", "unique_violation": "23505", "check_violation": "23514",
	"exclusion_violation": "23P01", "invalid_cursor_state": "24000", "invalid_transaction_state": "25000",
	"active_sql_transaction": "25001", "read_only_sql_transaction": "25006", "in_failed_sql_transaction": "25P02",
	"invalid_sql_statement_name": "26000", "triggered_data_change_violation": "27000",
	"invalid_authorization_specification": "28000", "dependent_objects_still_exist": "2BP01",
	"invalid_transaction_termination": "2D000", "sql_routine_exception": "2F000",
	"function_executed_no_return_statement": "2F005", "invalid_cursor_name": "34000",
	"external_routine_exception": "38000", "external_routine_invocation_exception": "39000",
	"savepoint_exception": "3B000", "invalid_catalog_name": "3D000", "invalid_schema_name": "3F000",
	"transaction_rollback": "40000", "serialization_failure": "40001", "deadlock_detected": "40P01",
	"syntax_error_or_access_rule_violation": "42000", "syntax_error": "42601", "insufficient_privilege": "42501",
	"datatype_mismatch": "42804", "wrong_object_type": "42809", "undefined_column": "42703",
	"undefined_function": "42883", "undefined_table": "42P01", "undefined_parameter": "42P02",
	"undefined_object": "42704", "duplicate_column": "42701", "duplicate_cursor": "42P03",
	"duplicate_database": "42P04", "duplicate_function": "42723", "duplicate_prepared_statement": "42P05",
	"duplicate_schema": "42P06", "duplicate_table": "42P07", "duplicate_alias": "42712",
	"duplicate_object": "42710", "ambiguous_column": "42702", "ambiguous_function": "42725",
	"ambiguous_parameter": "42P08", "invalid_column_reference": "42P10", "invalid_column_definition": "42611",
	"invalid_function_definition": "42P13", "invalid_schema_definition": "42P15",
	"invalid_table_definition": "42P16", "invalid_object_definition": "42P17", "indeterminate_datatype": "42P18",
	"grouping_error": "42803", "cannot_coerce": "42846", "invalid_name": "42602", "name_too_long": "42622",
	"reserved_name": "42939", "with_check_option_violation": "44000", "insufficient_resources": "53000",
	"disk_full": "53100", "out_of_memory": "53200", "too_many_connections": "53300",
	"program_limit_exceeded": "54000", "statement_too_complex": "54001",
	"object_not_in_prerequisite_state": "55000", "object_in_use": "55006", "lock_not_available": "55P03",
	"operator_intervention": "57000", "query_canceled": "57014", "admin_shutdown": "57P01",
	"system_error": "58000", "io_error": "58030", "undefined_file": "58P01",
	"plpgsql_error": "P0000", "raise_exception": "P0001", "no_data_found": "P0002", "too_many_rows": "P0003",
	"assert_failure": "P0004", "internal_error": "XX000", "data_corrupted": "XX001", "index_corrupted": "XX002",
	"case_not_found": "20000",
}

// conditionCode is the SQLSTATE a condition names: a name, or "sqlstate
// XXXXX".
func conditionCode(c string) (string, bool) {
	if code, ok := strings.CutPrefix(c, "sqlstate "); ok {
		return code, len(code) == 5
	}
	code, ok := conditionCodes[strings.ToLower(c)]
	return code, ok
}

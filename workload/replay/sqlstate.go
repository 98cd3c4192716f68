package replay

// conditions are PostgreSQL's condition names (Appendix A, errcodes.txt)
// of the SQLSTATEs a replay meets most; classes name the rest.
var conditions = map[string]string{
	"08000": "connection_exception", "08003": "connection_does_not_exist", "08006": "connection_failure",
	"08001": "sqlclient_unable_to_establish_sqlconnection", "08P01": "protocol_violation",
	"0A000": "feature_not_supported", "21000": "cardinality_violation",
	"22000": "data_exception", "22001": "string_data_right_truncation", "22003": "numeric_value_out_of_range",
	"22004": "null_value_not_allowed", "22007": "invalid_datetime_format", "22008": "datetime_field_overflow",
	"22012": "division_by_zero", "22023": "invalid_parameter_value", "22P02": "invalid_text_representation",
	"23000": "integrity_constraint_violation", "23001": "restrict_violation", "23502": "not_null_violation",
	"23503": "foreign_key_violation", "23505": "unique_violation", "23514": "check_violation", "23P01": "exclusion_violation",
	"25000": "invalid_transaction_state", "25001": "active_sql_transaction", "25006": "read_only_sql_transaction",
	"25P01": "no_active_sql_transaction", "25P02": "in_failed_sql_transaction",
	"26000": "invalid_sql_statement_name", "28000": "invalid_authorization_specification", "28P01": "invalid_password",
	"2BP01": "dependent_objects_still_exist", "34000": "invalid_cursor_name",
	"3D000": "invalid_catalog_name", "3F000": "invalid_schema_name",
	"40000": "transaction_rollback", "40001": "serialization_failure", "40P01": "deadlock_detected",
	"42000": "syntax_error_or_access_rule_violation", "42501": "insufficient_privilege", "42601": "syntax_error",
	"42602": "invalid_name", "42701": "duplicate_column", "42702": "ambiguous_column", "42703": "undefined_column",
	"42704": "undefined_object", "42710": "duplicate_object", "42712": "duplicate_alias", "42723": "duplicate_function",
	"42725": "ambiguous_function", "42803": "grouping_error", "42804": "datatype_mismatch", "42809": "wrong_object_type",
	"42830": "invalid_foreign_key", "42846": "cannot_coerce", "42883": "undefined_function",
	"42P01": "undefined_table", "42P02": "undefined_parameter", "42P03": "duplicate_cursor", "42P04": "duplicate_database",
	"42P05": "duplicate_prepared_statement", "42P06": "duplicate_schema", "42P07": "duplicate_table",
	"42P08": "ambiguous_parameter", "42P18": "indeterminate_datatype",
	"53000": "insufficient_resources", "53100": "disk_full", "53200": "out_of_memory", "53300": "too_many_connections",
	"54000": "program_limit_exceeded", "54001": "statement_too_complex",
	"55000": "object_not_in_prerequisite_state", "55006": "object_in_use", "55P03": "lock_not_available",
	"57000": "operator_intervention", "57014": "query_canceled", "57P01": "admin_shutdown", "57P02": "crash_shutdown",
	"57P03": "cannot_connect_now", "58000": "system_error", "58030": "io_error",
	"P0001": "raise_exception", "P0002": "no_data_found", "P0003": "too_many_rows", "P0004": "assert_failure",
	"XX000": "internal_error",
}

// classes are the SQLSTATE classes (the first two characters).
var classes = map[string]string{
	"08": "connection exception", "0A": "feature not supported", "22": "data exception",
	"23": "integrity constraint violation", "25": "invalid transaction state", "28": "invalid authorization",
	"40": "transaction rollback", "42": "syntax error or access rule violation", "53": "insufficient resources",
	"54": "program limit exceeded", "55": "object not in prerequisite state", "57": "operator intervention",
	"58": "system error", "P0": "PL/pgSQL error", "XX": "internal error",
}

// Condition names a SQLSTATE as PostgreSQL's appendix does
// ("foreign_key_violation"), or by its class ("class 23, integrity
// constraint violation") when it is not one of the common ones; "" for a
// code of no known class.
func Condition(code string) string {
	if c, ok := conditions[code]; ok {
		return c
	}
	if len(code) == 5 {
		if c, ok := classes[code[:2]]; ok {
			return "class " + code[:2] + ", " + c
		}
	}
	return ""
}

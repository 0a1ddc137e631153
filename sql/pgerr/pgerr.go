// Package pgerr is the error every layer above txn returns: a PostgreSQL
// error with a SQLSTATE, which pgwire turns into an ErrorResponse. Convert
// maps the storage layer's sentinels to their SQLSTATEs, so the mapping lives
// in one place.
package pgerr

import (
	"context"
	"fmt"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/sstable"
	"github.com/epochdb/epochdb/txn"
	"github.com/epochdb/epochdb/wal"
)

// SQLSTATE codes used by epochdb. Names follow PostgreSQL's errcodes.txt.
const (
	SuccessfulCompletion                           = "00000"
	Warning                                        = "01000"
	ConnectionException                            = "08000"
	ProtocolViolation                              = "08P01"
	FeatureNotSupported                            = "0A000"
	ExternalRoutineInvocation                      = "39000"
	InvalidTransactionState                        = "25000"
	ActiveSQLTransaction                           = "25001"
	NoActiveSQLTransaction                         = "25P01"
	InFailedSQLTransaction                         = "25P02"
	ReadOnlySQLTransaction                         = "25006"
	InvalidAuthorizationSpec                       = "28000"
	InvalidPassword                                = "28P01"
	InvalidCatalogName                             = "3D000"
	InvalidCursorName                              = "34000"
	InvalidSQLStatementName                        = "26000"
	SerializationFailure                           = "40001"
	DeadlockDetected                               = "40P01"
	SyntaxError                                    = "42601"
	InsufficientPrivilege                          = "42501"
	UndefinedColumn                                = "42703"
	UndefinedFunction                              = "42883"
	UndefinedTable                                 = "42P01"
	UndefinedObject                                = "42704"
	UndefinedParameter                             = "42P02"
	DuplicateColumn                                = "42701"
	DuplicateTable                                 = "42P07"
	DuplicateSchema                                = "42P06"
	ReservedName                                   = "42939"
	InvalidSchemaDefinition                        = "42P15"
	InvalidFunctionDefinition                      = "42P13"
	DuplicateFunction                              = "42723"
	UndefinedFile                                  = "58P01"
	DuplicateObject                                = "42710"
	DuplicatePreparedStatement                     = "42P05"
	DuplicateCursor                                = "42P03"
	AmbiguousColumn                                = "42702"
	AmbiguousFunction                              = "42725" // ambiguous_function: also for operators
	DuplicateAlias                                 = "42712"
	AmbiguousParameter                             = "42P08"
	IndeterminateDatatype                          = "42P18"
	DatatypeMismatch                               = "42804"
	CannotCoerce                                   = "42846"
	GroupingError                                  = "42803"
	InvalidColumnReference                         = "42P10"
	InvalidTableDefinition                         = "42P16"
	InvalidParameterValue                          = "22023"
	InvalidTextRepresentation                      = "22P02"
	InvalidBinaryRepresentation                    = "22P03"
	NumericValueOutOfRange                         = "22003"
	DivisionByZero                                 = "22012"
	StringDataRightTruncation                      = "22001"
	InvalidDatetimeFormat                          = "22007"
	DatetimeFieldOverflow                          = "22008"
	InvalidEscapeSequence                          = "22025"
	SequenceGeneratorLimitExceeded                 = "2200H"
	InvalidUseOfEscapeCharacter                    = "2200C"
	CharacterNotInRepertoire                       = "22021"
	NullValueNotAllowed                            = "22004"
	InvalidArgumentForWidthBucket                  = "2201G"
	InvalidParameterValueArray                     = "2202E"
	NotNullViolation                               = "23502"
	GeneratedAlways                                = "428C9"
	UniqueViolation                                = "23505"
	CheckViolation                                 = "23514"
	ForeignKeyViolation                            = "23503"
	InvalidForeignKey                              = "42830"
	QueryCanceled                                  = "57014"
	AdminShutdown                                  = "57P01"
	IOError                                        = "58030"
	DiskFull                                       = "53100"
	ObjectNotInPrerequisiteState                   = "55000"
	ProgramLimitExceeded                           = "54000"
	StackDepthExceeded                             = "54001"
	RaiseException                                 = "P0001"
	NoDataFound                                    = "P0002"
	TooManyRows                                    = "P0003"
	AssertFailure                                  = "P0004"
	CaseNotFound                                   = "20000"
	TriggeredDataChangeViolation                   = "27000"
	SQLRoutineException                            = "2F005" // function_executed_no_return_statement
	StackedDiagnosticsAccessedWithoutActiveHandler = "0Z002"
	TooManyConnections                             = "53300"
	SubstringError                                 = "22011"
	BadCopyFileFormat                              = "22P04"
	CantChangeRuntimeParam                         = "55P02"
	InternalError                                  = "XX000"
	DataCorrupted                                  = "XX001"
	IndexCorrupted                                 = "XX002"
	InvalidRecursion                               = "42P19"
	InvalidObjectDefinition                        = "42P17"
	WrongObjectType                                = "42809"
	InvalidName                                    = "42602"
	WindowingError                                 = "42P20"
	InvalidPrecedingOrFollowingSize                = "22013"
	InvalidArgumentForNtile                        = "22014"
	InvalidArgumentForNthValue                     = "22016"
	InvalidRegularExpression                       = "2201B"
	InvalidSchemaName                              = "3F000"
	DependentObjectsStillExist                     = "2BP01"
	InvalidArgumentForLogarithm                    = "2201E"
	InvalidArgumentForPowerFunction                = "2201F"
	InvalidRowCountInLimitClause                   = "2201W"
	InvalidRowCountInResultOffset                  = "2201X"
	CardinalityViolation                           = "21000"
	InvalidCursorState                             = "24000"
	InvalidCursorDefinition                        = "42P11"
	InvalidTransactionTermination                  = "2D000"
	InvalidSavepointSpecification                  = "3B001"
	ObjectInUse                                    = "55006"
	LockNotAvailable                               = "55P03"
	SyntaxErrorOrAccessRuleViolation               = "42000"
)

// Error is a PostgreSQL error. Its fields map one to one onto the fields of
// an ErrorResponse.
type Error struct {
	Severity string // ERROR unless set (FATAL, PANIC)
	Code     string
	Message  string
	Detail   string
	Hint     string
	// Where is the CONTEXT: the routines the error happened in,
	// innermost first, a line each.
	Where string
	// Position is the 1-based character offset in the query string, or 0.
	Position   int
	Table      string
	Column     string
	Constraint string
	cause      error
}

func (e *Error) Error() string { return e.Message }

// Unwrap exposes the error this one was made from, if any.
func (e *Error) Unwrap() error { return e.cause }

// New returns an error with a SQLSTATE and a formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithDetail sets Detail and returns e.
func (e *Error) WithDetail(format string, args ...any) *Error {
	e.Detail = fmt.Sprintf(format, args...)
	return e
}

// WithHint sets Hint and returns e.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// WithContext adds a CONTEXT line, below those the error has: the
// routine, or statement of one, that an inner line's error happened in.
func (e *Error) WithContext(format string, args ...any) *Error {
	line := fmt.Sprintf(format, args...)
	if e.Where == "" {
		e.Where = line
	} else {
		e.Where += "\n" + line
	}
	return e
}

// WithPosition sets Position (1-based) and returns e.
func (e *Error) WithPosition(pos int) *Error {
	e.Position = pos
	return e
}

// Code returns err's SQLSTATE, as Convert would report it; "" for nil.
func Code(err error) string {
	if err == nil {
		return ""
	}
	return Convert(err).Code
}

// Convert returns err as a *Error. An error that already is one (anywhere in
// its chain) is returned as is; the storage layer's sentinels map to their
// SQLSTATEs; anything else is an internal error (XX000), because an error
// nobody classified is a bug.
func Convert(err error) *Error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	code := InternalError
	msg := err.Error()
	switch {
	case errors.Is(err, txn.ErrSerialization):
		code, msg = SerializationFailure, "could not serialize access due to concurrent update"
	case errors.Is(err, txn.ErrSerializationRW):
		code, msg = SerializationFailure, "could not serialize access due to read/write dependencies among transactions"
	case errors.Is(err, txn.ErrDeadlock):
		code, msg = DeadlockDetected, "deadlock detected"
	case errors.Is(err, txn.ErrWrittenByTrigger):
		code, msg = TriggeredDataChangeViolation, "tuple to be updated was already modified by an operation triggered by the current command"
	case errors.Is(err, txn.ErrRowHeld):
		// What PostgreSQL says of a row that code its update ran changed.
		code, msg = TriggeredDataChangeViolation, "tuple to be updated was already modified by an operation triggered by the current command"
	case errors.Is(err, txn.ErrLockTimeout):
		code, msg = LockNotAvailable, "canceling statement due to lock timeout"
	case errors.Is(err, context.Canceled):
		code, msg = QueryCanceled, "canceling statement due to user request"
	case errors.Is(err, context.DeadlineExceeded):
		code, msg = QueryCanceled, "canceling statement due to statement timeout"
	case errors.Is(err, sstable.ErrCorrupt), errors.Is(err, wal.ErrCorrupt):
		code = DataCorrupted
		var ce *sstable.CorruptionError
		if errors.As(err, &ce) {
			msg = fmt.Sprintf("invalid %s block at offset %d of file %q: %v", ce.Block, ce.Offset, ce.File, ce.Err)
		}
	case errors.Is(err, wal.ErrPoisoned):
		code = IOError
	case errors.Is(err, txn.ErrClosed), errors.Is(err, wal.ErrClosed):
		code, msg = AdminShutdown, "terminating connection due to administrator command"
	}
	e := &Error{Code: code, Message: msg, cause: err}
	if code == TriggeredDataChangeViolation {
		e.Hint = "Consider using an AFTER trigger instead of a BEFORE trigger to propagate changes to other rows."
	}
	if d := errors.FlattenDetails(err); d != "" {
		e.Detail = d
	}
	return e
}

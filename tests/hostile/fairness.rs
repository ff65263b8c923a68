//! (cases added by the issue-14 work)

package launch

// CutLifeline closes servetune's end of the guardian's stdin, as the
// kernel does when servetune is killed with -9.
func CutLifeline(s *Server) { s.lifeline.Close() }

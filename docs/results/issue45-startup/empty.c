int ls_empty_marker(void){return 0;}
